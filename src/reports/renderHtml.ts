import { formatMoney } from './money.ts';
import { type Report, type Section, sectionsOf } from './sections.ts';

const escapeHtml = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const label = (column: string) => column.replaceAll('_', ' ');

const STYLE = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2433;margin:2rem auto;max-width:1200px;padding:0 1rem}
h1{font-size:1.6rem;margin:0 0 .2rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;border-bottom:1px solid #d8dde6;padding-bottom:.3rem}
.meta{color:#5b6577;margin-bottom:1.5rem}.cards{display:flex;flex-wrap:wrap;gap:1rem}
.card{border:1px solid #d8dde6;border-radius:8px;padding:1rem 1.2rem;min-width:16rem}.card h3{margin:0 0 .6rem;font-size:1rem}
.card dl{display:grid;grid-template-columns:auto auto;gap:.2rem 1.5rem;margin:0}.card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.card .net{font-weight:600}table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{padding:.35rem .6rem;border-bottom:1px solid #eceff4;vertical-align:top}
th{text-align:left;background:#f5f7fa;font-weight:600;white-space:nowrap}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.empty{color:#5b6577;font-style:italic}.scroll{overflow-x:auto}.tag{display:inline-block;padding:0 .4rem;border-radius:4px;background:#eef1f6;font-size:.8rem}
`;

function cell(section: Section, row: Record<string, unknown>, column: string): string {
  const value = row[column];
  if (section.money.includes(column) && typeof value === 'number') {
    return `<td class="num">${escapeHtml(formatMoney(value, (row.currency as string | null) ?? null))}</td>`;
  }
  if (column === 'payment_id' && typeof value === 'string') {
    return `<td><a href="/api/payments/${encodeURIComponent(value)}">${escapeHtml(value)}</a></td>`;
  }
  if (typeof value === 'number') return `<td class="num">${escapeHtml(value.toLocaleString('en-US'))}</td>`;
  if (typeof value === 'boolean') return `<td>${value ? 'yes' : 'no'}</td>`;
  return `<td>${escapeHtml(value)}</td>`;
}

function table(section: Section): string {
  if (section.rows.length === 0) return `<h2>${escapeHtml(section.title)}</h2><p class="empty">None.</p>`;
  const numeric = (column: string) =>
    section.money.includes(column) || typeof section.rows[0]?.[column] === 'number';
  const head = section.columns
    .map((column) => `<th${numeric(column) ? ' class="num"' : ''}>${escapeHtml(label(column))}</th>`)
    .join('');
  const body = section.rows
    .map((row) => `<tr>${section.columns.map((column) => cell(section, row, column)).join('')}</tr>`)
    .join('\n');
  return `<h2>${escapeHtml(section.title)}</h2><div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function summaryCards(report: Report): string {
  if (report.kind !== 'daily') return '';
  if (report.totals.length === 0) return '<p class="empty">No settled payments or refunds on this day.</p>';
  const cards = report.totals.map((total) => {
    const currency = String(total.currency);
    const line = (name: string, key: string, cls = '') =>
      `<dt${cls}>${name}</dt><dd${cls}>${escapeHtml(formatMoney(Number(total[key]), currency))}</dd>`;
    return `<div class="card"><h3><span class="tag">${escapeHtml(total.account_type)}</span> ${escapeHtml(currency.toUpperCase())} · ${escapeHtml(total.payments)} payments</h3><dl>
      ${line('Gross', 'gross')}${line('Fees', 'fees')}${line('Refunded', 'refunded')}${line('Fees returned', 'returned_fees')}${line('Net', 'net', ' class="net"')}
    </dl></div>`;
  });
  return `<div class="cards">${cards.join('')}</div>`;
}

/** A self-contained page a finance reader can read without help: summary first, then every table. */
export function renderHtml(report: Report, reportId: string): string {
  const title =
    report.kind === 'daily' ? `Daily reconciliation report, ${report.date}` : 'Fee configuration comparison';
  const sections = sectionsOf(report);
  const tables = (report.kind === 'daily' ? sections.slice(1) : sections).map(table).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<p class="meta">Report ${escapeHtml(reportId)} · generated ${escapeHtml(report.generated_at)} (UTC) · amounts in each row's currency; test and live are never added together. Net = gross − fees − refunded + fees returned by refunds; fees handed back by ACH returns and voids are listed by reason, not in net.</p>
${summaryCards(report)}
${tables}
</body></html>
`;
}
