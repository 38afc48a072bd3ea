import { stringify } from 'csv-stringify/sync';
import { centsToDecimal } from './amounts.ts';
import type { PeriodReport } from './buildPeriodReport.ts';
import { WALK_TERMS } from './walk.ts';

/** The activity columns, in the order the contract's `net` reads them. */
export const ACTIVITY = [
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
