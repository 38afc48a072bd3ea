import type { Queryable } from '../db/pool.ts';
import {
  type DailyPayoutCheckRow,
  type DailyPayoutRow,
  sumDailyPayoutChecks,
  sumDailyPayouts,
  sumPaymentsAwaitingPayout,
} from '../payouts/payoutReportQueries.ts';
import { type AccountKey, rowsPerAccount } from './accountRows.ts';
import type { Section } from './sectionShape.ts';

/** A row of the payouts table: the day's payouts, their line checks, and the payments awaiting payout now. */
export type PayoutReportRow = DailyPayoutRow &
  Omit<DailyPayoutCheckRow, keyof AccountKey> & {
    awaiting_payout: number;
    awaiting_payout_amount: number;
    oldest_awaiting_at: string | null;
  };

const COLUMNS = [
  'account_type',
  'account_id',
  'currency',
  'created',
  'paid',
  'failed',
  'paid_out',
  'lines_checked',
  'lines_mismatched',
  'awaiting_payout',
  'awaiting_payout_amount',
  'oldest_awaiting_at',
  'bank_matched',
  'bank_unmatched',
] as const;

/**
 * The report's payouts, per account and currency: payouts created, paid (amount paid out) and failed on the
 * day, lines of the payouts judged that day checked and mismatched, payments awaiting a payout as of the
 * snapshot (count, amount, the oldest's creation), and the day's paid payouts matched or not in the bank.
 */
export async function buildPayoutRows(
  db: Queryable,
  from: Date,
  to: Date,
  generatedAt: Date,
): Promise<PayoutReportRow[]> {
  // One after another: the queries share the caller's snapshot transaction, hence one connection.
  const payouts = await sumDailyPayouts(db, from, to);
  const checks = await sumDailyPayoutChecks(db, from, to);
  const awaiting = await sumPaymentsAwaitingPayout(db, generatedAt);
  const { rowFor, sorted } = rowsPerAccount<PayoutReportRow>((key) => ({
    ...key,
    created: 0,
    paid: 0,
    failed: 0,
    paid_out: 0,
    lines_checked: 0,
    lines_mismatched: 0,
    awaiting_payout: 0,
    awaiting_payout_amount: 0,
    oldest_awaiting_at: null,
    bank_matched: 0,
    bank_unmatched: 0,
  }));
  for (const row of payouts) Object.assign(rowFor(row), row);
  for (const row of checks) Object.assign(rowFor(row), row);
  for (const row of awaiting)
    Object.assign(rowFor(row), {
      awaiting_payout: row.awaiting,
      awaiting_payout_amount: row.awaiting_amount,
      oldest_awaiting_at: row.oldest_awaiting_at?.toISOString() ?? null,
    });
  return sorted();
}

/** The payouts table of a daily report; reports stored before it existed have no rows. */
export function payoutsSection(rows: PayoutReportRow[] | undefined): Section {
  return {
    name: 'payouts',
    title:
      'Payouts created, paid and failed on this day, lines checked; payments awaiting a payout now; paid payouts matched in the bank',
    columns: [...COLUMNS],
    money: ['paid_out', 'awaiting_payout_amount'],
    rows: rows ?? [],
  };
}
