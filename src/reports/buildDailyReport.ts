import type { Queryable } from '../db/pool.ts';
import { rowsPerAccount } from './accountRows.ts';
import { achReturnsByCode } from './achReturnsByCode.ts';
import {
  sumDailyFeesReturnedWithoutRefund,
  sumDailyPayments,
  sumDailyRefunds,
} from './dailyPaymentQueries.ts';
import { listTopFindings, sumDailyAchReturns, sumDailyDisputes, sumDailyForwarding } from './dailyQueries.ts';
import { declinesByNetwork } from './declinesByNetwork.ts';
import { sumAcceptedFindings, sumMatchRates, sumOpenFindings } from './findingQueries.ts';
import { buildPayoutRows } from './payoutsSection.ts';
import { returnedFeesByReason } from './returnedFeesByReason.ts';

/** Money columns of an account row, in cents; totals are their sums, so a total always equals its rows. */
export const MONEY_COLUMNS = [
  'gross',
  'fees',
  'processing_fees',
  'platform_fees',
  'other_fees',
  'configured_fees',
  'explicit_fees',
  'legacy_application_fees',
  'refunded',
  'returned_fees',
  'returned_processing_fees',
  'returned_platform_fees',
  'net',
] as const;
export const COUNT_COLUMNS = ['payments', 'refunds'] as const;

type AccountRow = { account_type: string; account_id: string; currency: string } & Record<
  (typeof MONEY_COLUMNS)[number] | (typeof COUNT_COLUMNS)[number],
  number
>;

export type DailyReport = Awaited<ReturnType<typeof buildDailyReport>>;

/**
 * The instants a business day starts and ends at: midnight to midnight in `timeZone`, so a day of 23 or 25
 * hours (daylight saving) is exactly that long. Postgres applies the zone's rules, as it does for the report.
 */
export async function businessDayBounds(
  db: Queryable,
  date: string,
  timeZone: string,
): Promise<{ from: Date; to: Date }> {
  const { rows } = await db.query<{ from: Date; to: Date }>(
    `select ($1::date)::timestamp at time zone $2::text as "from",
            ($1::date + 1)::timestamp at time zone $2::text as "to"`,
    [date, timeZone],
  );
  return rows[0] as { from: Date; to: Date };
}

/**
 * The reconciliation report of one business day (a calendar day in `timeZone`), per account and currency, test and live kept apart:
 * settled payments and gross, fees by type and by source, refunds and returned fees, net
 * (gross − fees − refunded + returned fees), fees returned by reason (refund, ACH return, void), ACH returns,
 * disputes (opened, won, lost that day; open now and the amount at risk), captures at risk, forwarding
 * outcomes per destination, open findings with the money at stake, accepted findings apart, and the match
 * rate of the day's payments, and payouts (`payoutsSection.ts`). Set-based: a handful of grouped queries.
 */
export async function buildDailyReport(db: Queryable, date: string, generatedAt: Date, timeZone: string) {
  const { from, to } = await businessDayBounds(db, date, timeZone);
  // One after another: the queries share the caller's snapshot transaction, hence one connection.
  const payments = await sumDailyPayments(db, from, to);
  const refunds = await sumDailyRefunds(db, from, to);
  const achReturns = await sumDailyAchReturns(db, from, to);
  const feesReturnedWithoutRefund = await sumDailyFeesReturnedWithoutRefund(db, from, to);
  const forwarding = await sumDailyForwarding(db, from, to);
  // Opened, won and lost on the day; open and at risk as of the snapshot (see the query).
  const disputes = await sumDailyDisputes(db, from, to);
  // Open discrepancies are a current state: as of when the report is built, whatever day it covers.
  const findings = await sumOpenFindings(db, generatedAt);
  const topFindings = await listTopFindings(db, generatedAt, 100);
  const acceptedFindings = await sumAcceptedFindings(db, generatedAt);
  const matchRates = await sumMatchRates(db, from, to);
  const payouts = await buildPayoutRows(db, from, to, generatedAt);
  const declines = await declinesByNetwork(db, from, to);

  const { rowFor, sorted } = rowsPerAccount((key) => {
    const row = { ...key } as AccountRow;
    for (const column of [...MONEY_COLUMNS, ...COUNT_COLUMNS]) row[column] = 0;
    return row;
  });
  for (const payment of payments) Object.assign(rowFor(payment), payment);
  for (const refund of refunds) Object.assign(rowFor(refund), refund);
  const accountRows = sorted().map((row) => ({
    ...row,
    net: row.gross - row.fees - row.refunded + row.returned_fees,
  }));

  return {
    kind: 'daily' as const,
    date,
    time_zone: timeZone,
    generated_at: generatedAt.toISOString(),
    totals: totalsOf(accountRows),
    accounts: accountRows,
    returned_fees_by_reason: returnedFeesByReason(refunds, feesReturnedWithoutRefund),
    ach_returns: achReturnsByCode(achReturns),
    disputes,
    captures: findings.filter((row) => row.code.startsWith('capture_')),
    forwarding,
    findings,
    top_findings: topFindings.map((row) => ({ ...row, id: `fnd_${row.id}` })),
    accepted_findings: acceptedFindings,
    match_rates: matchRates,
    payouts,
    declines,
  };
}

/** Per test/live and currency: the sum of the account rows (never across currencies or modes). */
function totalsOf(rows: AccountRow[]) {
  const totals = new Map<string, Record<string, number | string>>();
  for (const row of rows) {
    const key = `${row.account_type}\u0000${row.currency}`;
    const total = totals.get(key) ?? { account_type: row.account_type, currency: row.currency, accounts: 0 };
    total.accounts = Number(total.accounts) + 1;
    for (const column of [...COUNT_COLUMNS, ...MONEY_COLUMNS])
      total[column] = Number(total[column] ?? 0) + row[column];
    totals.set(key, total);
  }
  return [...totals.values()];
}
