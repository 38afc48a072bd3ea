import type { Queryable } from '../db/pool.ts';
import type { JournalMovement } from './journal.ts';
import type { MovementKind } from './movementKinds.ts';
import { listMovements, type MovementRow } from './movementQueries.ts';
import { listPayoutsNotInBank, listPeriodFindings, sumPaymentsAwaitingPayout } from './openItemQueries.ts';
import { periodBounds } from './periods.ts';
import { sumUnexplainedByFinding } from './unexplainedQueries.ts';
import { activityOf, emptyTotals, heldOf, type KindTotals, walkOf } from './walk.ts';

export type AccountKey = { account_type: string; account_id: string; currency: string };
export const keyOf = (row: AccountKey) => `${row.account_type}\u0000${row.account_id}\u0000${row.currency}`;

/**
 * What the closed periods before this one say, when the one before it is closed: per account key, its closed
 * `held_end`, and the movements by kind the closed periods booked (their own and their adjustments), against
 * which everything Tally now knows before this period gives this period's adjustments.
 */
export type PriorClose = {
  period: string;
  heldEnd: Map<string, number>;
  booked: Map<string, { key: AccountKey; totals: KindTotals }>;
};

export type PeriodReport = Awaited<ReturnType<typeof buildPeriodReport>>;

function totalsByKey(rows: (AccountKey & { kind: MovementKind; amount: number })[]) {
  const byKey = new Map<string, { key: AccountKey; totals: KindTotals }>();
  for (const row of rows) {
    const key = keyOf(row);
    const entry = byKey.get(key) ?? {
      key: { account_type: row.account_type, account_id: row.account_id, currency: row.currency },
      totals: emptyTotals(),
    };
    entry.totals[row.kind] += row.amount;
    byKey.set(key, entry);
  }
  return byKey;
}

/**
 * The close report of a period (DESIGN.md, "Month-end close"), per account and currency, test and live apart:
 * activity, payouts, bank, the walk, open items, and the journal's movements. Read inside one snapshot
 * (withReportSnapshot); set-based: the movements of the period and of everything before it, then open items.
 */
export async function buildPeriodReport(
  db: Queryable,
  period: string,
  timeZone: string,
  generatedAt: Date,
  prior: PriorClose | null,
) {
  const { from, to } = await periodBounds(db, period, timeZone);
  const movements = await listMovements(db, from, to, timeZone);
  const before = totalsByKey(await listMovements(db, null, from, timeZone));
  const during = totalsByKey(movements);
  const unexplainedByFinding = await sumUnexplainedByFinding(db, from, to);

  // Adjustments: what is now known before the period, less what the closed periods booked.
  const adjustments = new Map<string, { key: AccountKey; totals: KindTotals }>();
  if (prior) {
    for (const [key, entry] of [...before, ...prior.booked]) {
      if (!adjustments.has(key)) adjustments.set(key, { key: entry.key, totals: emptyTotals() });
    }
    for (const [key, adjustment] of adjustments) {
      for (const kind of Object.keys(adjustment.totals) as MovementKind[]) {
        adjustment.totals[kind] =
          (before.get(key)?.totals[kind] ?? 0) - (prior.booked.get(key)?.totals[kind] ?? 0);
      }
    }
  }

  const keys = new Map<string, AccountKey>();
  for (const source of [during, before, adjustments])
    for (const [key, entry] of source) keys.set(key, entry.key);
  const accounts = [...keys.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, account]) => {
      const totals = during.get(key)?.totals ?? emptyTotals();
      const heldBefore = heldOf(before.get(key)?.totals ?? emptyTotals());
      const heldStart = prior ? (prior.heldEnd.get(key) ?? 0) : heldBefore;
      const walk = walkOf(heldStart, heldBefore - heldStart, heldBefore, totals);
      const explained = unexplainedByFinding.filter(
        (row) => row.account_id === account.account_id && row.currency === account.currency,
      );
      const beforeTotals = before.get(key)?.totals ?? emptyTotals();
      const inTransit = (t: KindTotals) => t.payout - t.payout_reversed - t.bank_credit;
      return {
        ...account,
        activity: activityOf(totals),
        payouts: {
          created: totals.payout,
          reversed: totals.payout_reversed,
          paid_out: walk.paid_out,
          in_transit_end: inTransit(beforeTotals) + inTransit(totals),
        },
        bank: { confirmed: totals.bank_credit, not_confirmed: inTransit(beforeTotals) + inTransit(totals) },
        walk,
        unexplained: {
          total: walk.unexplained,
          by_finding: explained.map(({ code, amount }) => ({ code, amount })),
          remainder: walk.unexplained - explained.reduce((sum, row) => sum + row.amount, 0),
        },
        adjustments: adjustments.get(key)?.totals ?? null,
        movements: totals,
      };
    })
    .filter(
      (row) =>
        Object.values(row.movements).some((value) => value !== 0) ||
        row.walk.held_end !== 0 ||
        row.walk.held_start !== 0 ||
        row.adjustments !== null,
    );

  const findings = await listPeriodFindings(db, period, from, to);
  return {
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
      payments_awaiting_payout: await sumPaymentsAwaitingPayout(db, to),
      payouts_not_in_bank: (await listPayoutsNotInBank(db, to)).map((row) => ({
        ...row,
        created_at: row.created_at.toISOString(),
      })),
    },
    journal: journalMovementsOf(movements, accounts, period, prior),
  };
}

/** Live money only (a ledger books no test payments), summed over accounts per day, kind and currency. */
function journalMovementsOf(
  movements: MovementRow[],
  accounts: { account_type: string; currency: string; adjustments: KindTotals | null }[],
  period: string,
  prior: PriorClose | null,
): JournalMovement[] {
  const sums = new Map<string, JournalMovement>();
  for (const row of movements) {
    if (row.account_type !== 'live') continue;
    const key = `${row.currency}\u0000${row.day}\u0000${row.kind}\u0000${row.reference ?? ''}`;
    const entry = sums.get(key) ?? {
      currency: row.currency,
      day: row.day,
      kind: row.kind,
      reference: row.reference,
      amount: 0,
    };
    entry.amount += row.amount;
    sums.set(key, entry);
  }
  for (const account of accounts) {
    if (account.account_type !== 'live' || !account.adjustments || !prior) continue;
    for (const [kind, amount] of Object.entries(account.adjustments) as [MovementKind, number][]) {
      const key = `${account.currency}\u0000adjust\u0000${kind}`;
      const entry = sums.get(key) ?? {
        currency: account.currency,
        day: `${period}-01`,
        kind,
        reference: null,
        amount: 0,
        adjusts: prior.period,
      };
      entry.amount += amount;
      sums.set(key, entry);
    }
  }
  return [...sums.values()].filter((entry) => entry.amount !== 0);
}
