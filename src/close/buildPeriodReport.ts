import type { Queryable } from '../db/pool.ts';
import type { MovementKind } from '../domain/movementKinds.ts';
import type { Alongside } from '../reports/withReportSnapshot.ts';
import type { BookedRow } from './closeQueries.ts';
import { journalMovementsOf } from './journal.ts';
import { listMovements } from './movementQueries.ts';
import type { MovementRow } from './movementRules.ts';
import { listPayoutsNotInBank, listPeriodFindings } from './openItemQueries.ts';
import { payoutsOfUnknownMode } from './payoutModes.ts';
import { periodBounds } from './periods.ts';
import { addMovement, sortedByKey, sumByKey } from './sumByKey.ts';
import { tieOutAt } from './tieOut.ts';
import { ITEMS_LISTED, sumProviderHeld } from './tieOutQueries.ts';
import { sumUnexplainedByFinding } from './unexplainedQueries.ts';
import { listUnpaidPayments } from './unpaidPaymentQueries.ts';
import { activityOf, emptyTotals, heldOf, type KindTotals, walkOf } from './walk.ts';

export type AccountKey = { account_type: string; account_id: string; currency: string };
export const keyOf = (row: AccountKey) => `${row.account_type}\u0000${row.account_id}\u0000${row.currency}`;

/**
 * What the closed periods before this one say, when this is the first open period: the latest closed period,
 * per account key its closed `held_end`, and the movements by month and kind the closed periods booked (their
 * own and their adjustments), against which everything Tally now knows before this period gives this period's
 * adjustments.
 */
export type PriorClose = {
  period: string;
  heldEnd: Map<string, number>;
  booked: BookedRow[];
};

type MonthTotals = { month: string; key: AccountKey; totals: KindTotals };

export type PeriodReport = Awaited<ReturnType<typeof buildPeriodReport>>;

/** Movements summed per month and account key, by kind, in that order: what a close books. */
export function bookedOf(rows: MovementRow[]): BookedRow[] {
  return sortedByKey(totalsByMonth(rows, monthOfDay).entries(), ([key]) => key).map(
    ([, { month, key, totals }]) => ({
      month,
      ...key,
      totals: Object.fromEntries(Object.entries(totals).filter(([, amount]) => amount !== 0)),
    }),
  );
}

const accountOf = (row: AccountKey): AccountKey => ({
  account_type: row.account_type,
  account_id: row.account_id,
  currency: row.currency,
});
type Movement = AccountKey & { kind: MovementKind; amount: number };
const monthOfDay = (row: MovementRow) => row.day.slice(0, 7);

/** Movements summed per month and account key, by kind (into `sums` when given). */
function totalsByMonth<Row extends Movement>(
  rows: Row[],
  monthOf: (row: Row) => string,
  sums?: Map<string, MonthTotals>,
): Map<string, MonthTotals> {
  return sumByKey(
    rows,
    (row) => `${monthOf(row)}\u0000${keyOf(row)}`,
    (row) => ({ month: monthOf(row), key: accountOf(row), totals: emptyTotals() }),
    addMovement,
    sums,
  );
}

/**
 * The adjustments the first open period books, per month of origin and account key: what Tally now knows of
 * the months before it, less what the closed periods booked of them.
 */
function adjustmentsOf(beforeRows: MovementRow[], prior: PriorClose): Map<string, MonthTotals> {
  const booked = prior.booked.flatMap((row) =>
    (Object.entries(row.totals) as [MovementKind, number][]).map(([kind, amount]) => ({
      ...row,
      kind,
      amount: -amount,
    })),
  );
  const adjustments = totalsByMonth(booked, (row) => row.month, totalsByMonth(beforeRows, monthOfDay));
  for (const [key, entry] of adjustments)
    if (Object.values(entry.totals).every((amount) => amount === 0)) adjustments.delete(key);
  return adjustments;
}

/** Movements summed per account key, by kind. */
export function totalsByKey(rows: Movement[]) {
  return sumByKey(rows, keyOf, (row) => ({ key: accountOf(row), totals: emptyTotals() }), addMovement);
}

/**
 * The close report of a period (docs/month-end.md), per account and currency, test and live apart:
 * activity, payouts, bank, the walk, open items, and the journal's movements. Read inside one snapshot
 * (withReportSnapshot); set-based: the movements of the period and of everything before it, then open items.
 */
export async function buildPeriodReport(
  db: Queryable,
  period: string,
  timeZone: string,
  generatedAt: Date,
  prior: PriorClose | null,
  alongside?: Alongside,
) {
  return (await buildPeriodClose(db, period, timeZone, generatedAt, prior, alongside)).report;
}

/**
 * The close report, and what closing it books: every movement up to the period's end, by month (bookedOf).
 * The provider's held lines, the tie-out's longest pass, are read `alongside` the rest when the snapshot has a
 * second connection (withReportSnapshot), and first on `db` otherwise.
 */
export async function buildPeriodClose(
  db: Queryable,
  period: string,
  timeZone: string,
  generatedAt: Date,
  prior: PriorClose | null,
  alongside: Alongside = (read) => read(db),
) {
  const { from, to } = periodBounds(period, timeZone);
  const providerHeld = alongside((other) => sumProviderHeld(other, to));
  // Awaited below; until then a failure of the report's own queries is the one to report.
  providerHeld.catch(() => undefined);
  const movements = await listMovements(db, from, to, timeZone);
  const beforeRows = await listMovements(db, null, from, timeZone, 'month');
  const before = totalsByKey(beforeRows);
  const during = totalsByKey(movements);
  const unexplainedByFinding = await sumUnexplainedByFinding(db, from, to);

  const byOrigin = prior ? adjustmentsOf(beforeRows, prior) : new Map<string, MonthTotals>();
  const adjustments = totalsByKey(
    [...byOrigin.values()].flatMap(({ key, totals }) =>
      Object.entries(totals).map(([kind, amount]) => ({ ...key, kind: kind as MovementKind, amount })),
    ),
  );

  const unpaid = await listUnpaidPayments(db, to, ITEMS_LISTED);
  const findings = await listPeriodFindings(db, period, from, to);
  const payoutsNotInBank = await listPayoutsNotInBank(db, to, timeZone);
  // Last: it waits for the held lines once the report's own queries are done.
  const tieOut = await tieOutAt(db, to, generatedAt, unpaid.withoutLine, providerHeld);
  const keys = new Map<string, AccountKey>();
  for (const source of [during, before, adjustments])
    for (const [key, entry] of source) keys.set(key, entry.key);
  const accounts = [...keys.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, account]) => {
      const totals = during.get(key)?.totals ?? emptyTotals();
      const beforeTotals = before.get(key)?.totals ?? emptyTotals();
      const heldBefore = heldOf(beforeTotals);
      const heldStart = prior ? (prior.heldEnd.get(key) ?? 0) : heldBefore;
      const walk = walkOf(heldStart, heldBefore - heldStart, heldBefore, totals);
      const explained = unexplainedByFinding.filter(
        (row) => row.account_id === account.account_id && row.currency === account.currency,
      );
      // Paid out by the provider and not yet seen in the bank, before and during the period.
      const inTransit = [beforeTotals, totals].reduce(
        (sum, t) => sum + t.payout - t.payout_reversed - t.bank_credit,
        0,
      );
      return {
        ...account,
        activity: activityOf(totals),
        payouts: {
          created: totals.payout,
          reversed: totals.payout_reversed,
          paid_out: walk.paid_out,
          in_transit_end: inTransit,
        },
        bank: { confirmed: totals.bank_credit, not_confirmed: inTransit },
        walk,
        unexplained: {
          total: walk.unexplained,
          by_finding: explained.map(({ code, amount }) => ({ code, amount })),
          remainder: walk.unexplained - explained.reduce((sum, row) => sum + row.amount, 0),
        },
        adjustments: prior ? (adjustments.get(key)?.totals ?? emptyTotals()) : null,
        movements: totals,
        ...tieOut(account, walk.held_end),
      };
    })
    .filter(
      (row) =>
        Object.values(row.movements).some((value) => value !== 0) ||
        row.walk.held_end !== 0 ||
        row.walk.held_start !== 0 ||
        Object.values(row.adjustments ?? {}).some((value) => value !== 0),
    );

  const report = {
    kind: 'period' as const,
    period,
    time_zone: timeZone,
    from: from.toISOString(),
    to: to.toISOString(),
    generated_at: generatedAt.toISOString(),
    adjusts: prior?.period ?? null,
    accounts,
    open_items: {
      findings: findings.filter((row) => row.status === 'open').map(({ accepted: _accepted, ...row }) => row),
      accepted: findings.filter((row) => row.status === 'accepted'),
      payments_awaiting_payout: unpaid.awaiting,
      payouts_not_in_bank: payoutsNotInBank.map((row) => ({
        ...row,
        created_at: row.created_at.toISOString(),
      })),
      payout_mode_unknown: payoutsOfUnknownMode(movements),
    },
    journal: journalMovementsOf(movements, [...byOrigin.values()], period),
  };
  return { report, booked: bookedOf([...beforeRows, ...movements]) };
}
