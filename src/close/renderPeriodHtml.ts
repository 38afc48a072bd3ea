import path from 'node:path';
import { Eta } from 'eta';
import { businessDate } from '../domain/days.ts';
import { formatMoney } from '../domain/money.ts';
import { renderReportPage } from '../reports/renderHtml.ts';
import type { ReportFiles } from '../reports/saveReport.ts';
import type { PeriodReport } from './buildPeriodReport.ts';
import { nextPeriod } from './periods.ts';
import { renderPeriodCsv } from './renderPeriod.ts';
import { WALK_TERMS } from './walk.ts';

// Eta escapes every `<%=` output; `<%~` is used only for markup the template itself wrote.
const eta = new Eta({ views: path.join(import.meta.dirname, 'templates'), autoEscape: true, cache: true });

const WALK_LABELS: Record<(typeof WALK_TERMS)[number], string> = {
  held_start: 'Held at start',
  prior_period_adjustments: 'Prior period adjustments',
  net: 'Net',
  unexplained: 'Unexplained',
  paid_out: 'Paid out',
  held_end: 'Held at end',
};

const ACTIVITY_LABELS = [
  ['sales', 'Sales'],
  ['processing_fees', 'Processing fees'],
  ['platform_fees', 'Platform fees'],
  ['other_fees', 'Other fees'],
  ['fees_returned', 'Fees returned'],
  ['refunds', 'Refunds'],
  ['disputes_withdrawn', 'Disputes withdrawn'],
  ['disputes_returned', 'Disputes returned'],
  ['ach_returns', 'ACH returns'],
  ['net', 'Net'],
] as const;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A calendar day as people write it: `2026-10-01` → `1 Oct 2026`. */
export function readableDay(day: string): string {
  const [year, month, date] = day.split('-');
  return `${Number(date)} ${MONTHS[Number(month) - 1]} ${year}`;
}

/** A period's first and last business day: `1 Oct 2026 – 31 Oct 2026`. */
export function periodDays(period: string): string {
  const last = new Date(Date.parse(`${nextPeriod(period)}-01T00:00:00Z`) - 1).toISOString().slice(0, 10);
  return `${readableDay(`${period}-01`)} – ${readableDay(last)}`;
}

/**
 * What a controller reads of a period, without a page around it (the console's period page and the standalone
 * report both show it): the walk with the provider's ledger beside it, open items, the activity, payouts and
 * the bank, payments awaiting payout and payouts not in the bank. `findingLink` says where a finding id leads
 * (null: no link); a standalone page also says when it was built.
 */
export function renderPeriodBody(
  report: PeriodReport,
  findingLink: (id: string) => string | null,
  standalone = false,
): string {
  return eta.render('./periodBody', {
    report,
    standalone,
    days: periodDays(report.period),
    walkTerms: WALK_TERMS.map((term) => [term, WALK_LABELS[term]]),
    activity: ACTIVITY_LABELS,
    money: (cents: unknown, currency: string) =>
      typeof cents === 'number' ? formatMoney(cents, currency) : '—',
    day: (instant: string) => readableDay(businessDate(new Date(instant), report.time_zone)),
    readableDay,
    findingLink,
  });
}

/** The period's report as a page a finance reader can print. */
export function renderPeriodHtml(report: PeriodReport): string {
  return renderReportPage(
    `Period ${report.period}`,
    renderPeriodBody(report, () => null, true),
  );
}

/** A month's close report as a stored report's files: `period-<YYYY-MM>`, rewritten when the month is built again. */
export const PERIOD_REPORT_FILES: ReportFiles<PeriodReport> = {
  csv: renderPeriodCsv,
  html: (report) => renderPeriodHtml(report),
  name: ({ period }) => `period-${period}`,
};
