import { stringify } from 'csv-stringify/sync';
import { centsToDecimal } from './amounts.ts';
import type { PeriodReport } from './buildPeriodReport.ts';
import { WALK_TERMS } from './walk.ts';

const ACTIVITY = [
  'sales',
  'processing_fees',
  'platform_fees',
  'other_fees',
  'fees_returned',
  'refunds',
  'disputes_withdrawn',
  'disputes_returned',
  'ach_returns',
] as const;

/** One row per account and currency: activity, payouts, bank and the walk, amounts as two-decimal numbers. */
export function renderPeriodCsv(report: PeriodReport): string {
  const columns = [
    'period',
    'account_type',
    'account_id',
    'currency',
    ...ACTIVITY,
    'payouts_created',
    'payouts_reversed',
    'in_transit_end',
    'bank_confirmed',
    ...WALK_TERMS,
  ];
  return stringify(
    report.accounts.map((row) => [
      report.period,
      row.account_type,
      row.account_id,
      row.currency,
      ...ACTIVITY.map((name) => centsToDecimal(row.activity[name])),
      centsToDecimal(row.payouts.created),
      centsToDecimal(row.payouts.reversed),
      centsToDecimal(row.payouts.in_transit_end),
      centsToDecimal(row.bank.confirmed),
      ...WALK_TERMS.map((name) => centsToDecimal(row.walk[name])),
    ]),
    { header: true, columns },
  );
}

const escapeHtml = (value: unknown) =>
  String(value).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );

/** The walk of every account as a printable page. */
export function renderPeriodHtml(report: PeriodReport): string {
  const rows = report.accounts
    .map(
      (row) =>
        `<tr><td>${escapeHtml(row.account_type)}</td><td>${escapeHtml(row.account_id)}</td><td>${escapeHtml(
          row.currency.toUpperCase(),
        )}</td>${WALK_TERMS.map((name) => `<td class="num">${centsToDecimal(row.walk[name])}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const findings = report.open_items.findings
    .map(
      (row) =>
        `<tr><td>${escapeHtml(row.code)}</td><td>${escapeHtml(row.account_id ?? '')}</td><td class="num">${row.findings}</td><td class="num">${centsToDecimal(row.at_stake)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Period ${escapeHtml(report.period)}</title>
<style>body{font-family:sans-serif}td.num{text-align:right;font-variant-numeric:tabular-nums}td,th{padding:2px 8px}</style>
</head><body>
<h1>Period ${escapeHtml(report.period)} (${escapeHtml(report.time_zone)})</h1>
<h2>The walk</h2>
<table><thead><tr><th>mode</th><th>account</th><th>currency</th>${WALK_TERMS.map((name) => `<th>${name}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Open findings</h2>
<table><thead><tr><th>code</th><th>account</th><th>findings</th><th>at stake</th></tr></thead><tbody>
${findings}
</tbody></table>
</body></html>
`;
}
