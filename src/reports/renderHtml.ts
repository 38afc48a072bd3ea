import path from 'node:path';
import { Eta } from 'eta';
import { formatMoney } from '../domain/money.ts';
import { type Report, sectionsOf } from './reportSections.ts';

// Eta escapes every `<%=` output; `<%~` is used only for markup the templates themselves wrote.
const eta = new Eta({ views: path.join(import.meta.dirname, 'templates'), autoEscape: true, cache: true });

export const REPORT_STYLE = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2433;margin:2rem auto;max-width:1200px;padding:0 1rem}
h1{font-size:1.6rem;margin:0 0 .2rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;border-bottom:1px solid #d8dde6;padding-bottom:.3rem}
.meta{color:#5b6577;margin-bottom:1.5rem}.cards{display:flex;flex-wrap:wrap;gap:1rem}
.card{border:1px solid #d8dde6;border-radius:8px;padding:1rem 1.2rem;min-width:16rem}.card h3{margin:0 0 .6rem;font-size:1rem}
.card dl{display:grid;grid-template-columns:auto auto;gap:.2rem 1.5rem;margin:0}.card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.card .net{font-weight:600}table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{padding:.35rem .6rem;border-bottom:1px solid #eceff4;vertical-align:top}
th{text-align:left;background:#f5f7fa;font-weight:600;white-space:nowrap}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.empty{color:#5b6577;font-style:italic}.scroll{overflow-x:auto}.tag{display:inline-block;padding:0 .4rem;border-radius:4px;background:#eef1f6;font-size:.8rem}
`;

export function reportTitle(report: Report): string {
  return report.kind === 'daily'
    ? `Daily reconciliation report, ${report.date}`
    : 'Fee configuration comparison';
}

/**
 * The report's summary and tables as HTML, without a page around them: the standalone report and the
 * console both show it. `paymentLink` says where a payment id leads.
 */
export function renderReportBody(
  report: Report,
  reportId: string,
  paymentLink: (id: string) => string,
): string {
  const sections = sectionsOf(report);
  return eta.render('./body', {
    report,
    reportId,
    sections: report.kind === 'daily' ? sections.slice(1) : sections,
    formatMoney,
    paymentLink,
  });
}

/** A self-contained page a finance reader can read without help: summary first, then every table. */
export function renderHtml(report: Report, reportId: string): string {
  const body = renderReportBody(report, reportId, (id) => `/api/payments/${encodeURIComponent(id)}`);
  return renderReportPage(reportTitle(report), body);
}

/** A standalone report page around a body of markup Tally's own templates rendered. */
export function renderReportPage(title: string, body: string): string {
  return eta.render('./page', { title, style: REPORT_STYLE, body });
}
