import type { LedgerKind, MovementKind } from '../domain/movementKinds.ts';
import { MOVEMENTS } from '../domain/movementKinds.ts';
import type { MovementRow } from './movementRules.ts';
import { sortedByKey, sumByKey } from './sumByKey.ts';

/** A movement summed for the journal: live money only, one business day, one kind, one currency. */
export type JournalMovement = {
  currency: string;
  day: string;
  kind: MovementKind;
  reference: string | null;
  amount: number;
  /** Set on an adjustment: the closed period whose numbers changed. */
  adjusts?: string;
};

export type JournalLine = { kind: LedgerKind; debit: number; credit: number };

export type JournalEntry = {
  /** Made from what the entry is (entryIdOf), never from its position: the same in every version. */
  id: string;
  period: string;
  day: string;
  currency: string;
  movement: MovementKind;
  reference: string;
  memo: string;
  lines: [JournalLine, JournalLine];
};

/**
 * An entry's id: `tally-<period>-<currency>-<yyyymmdd>-<kind>` for a day's movement of one kind, with the
 * payout id after the kind for a payout's entries, and `-adj-<closed period>-<kind>` for an adjustment.
 */
export function entryIdOf(
  period: string,
  movement: Pick<JournalMovement, 'currency' | 'day' | 'kind' | 'adjusts'> & { payout: string | null },
): string {
  const base = `tally-${period}-${movement.currency}-${movement.day.replaceAll('-', '')}`;
  if (movement.adjusts) return `${base}-adj-${movement.adjusts}-${movement.kind}`;
  return movement.payout ? `${base}-${movement.kind}-${movement.payout}` : `${base}-${movement.kind}`;
}

/**
 * Balanced entries from the period's movements, one per business day, kind of movement and currency (a payout,
 * its reversal and its bank credit one per payout): two lines of the same amount, debit and credit as
 * MOVEMENTS says, swapped for a negative amount. In a fixed order (entryOrderOf), so the same numbers give the
 * same journal. A zero movement books nothing.
 */
export function buildJournalEntries(period: string, movements: JournalMovement[]): JournalEntry[] {
  const sorted = sortedByKey(
    movements.filter((movement) => movement.amount !== 0),
    entryOrderOf,
  );
  return sorted.map((movement) => {
    const posting = MOVEMENTS[movement.kind];
    const amount = Math.abs(movement.amount);
    const [debit, credit] =
      movement.amount > 0 ? [posting.debit, posting.credit] : [posting.credit, posting.debit];
    const reference = movement.adjusts
      ? `adjustment-${movement.adjusts}-${movement.kind}`
      : (movement.reference ?? `${movement.kind}-${movement.day}`);
    const memo = movement.adjusts
      ? `Adjustment to ${movement.adjusts}: ${posting.label}`
      : `${posting.label} ${movement.reference ?? movement.day}`;
    return {
      id: entryIdOf(period, { ...movement, payout: movement.adjusts ? null : movement.reference }),
      period,
      day: movement.day,
      currency: movement.currency,
      movement: movement.kind,
      reference,
      memo: `${period} ${memo}`,
      lines: [
        { kind: debit, debit: amount, credit: 0 },
        { kind: credit, debit: 0, credit: amount },
      ],
    };
  });
}

// Each kind's place in MOVEMENTS, two digits, so that it sorts as a number.
const KIND_ORDER = new Map(
  Object.keys(MOVEMENTS).map((kind, index) => [kind, String(index).padStart(2, '0')]),
);

/**
 * An entry's place in the journal (sortedByKey): currency, day, the closed period an adjustment is to (none
 * first), the kind as MOVEMENTS orders kinds, then the payout.
 */
const entryOrderOf = (movement: JournalMovement) =>
  [
    movement.currency,
    movement.day,
    movement.adjusts ?? '',
    KIND_ORDER.get(movement.kind),
    movement.reference ?? '',
  ].join('\u0000');

/**
 * The entries of a stored journal. Versions closed before entries had ids carry a position (`n`) instead: their
 * id is made from what they are, as buildJournalEntries makes it, from the reference they were stored with.
 */
export function storedEntries(entries: (JournalEntry | (Omit<JournalEntry, 'id'> & { n: number }))[]) {
  return entries.map((entry): JournalEntry => {
    if ('id' in entry) return entry;
    const { n: _n, ...rest } = entry;
    const adjusts = entry.reference.startsWith('adjustment-') ? entry.reference.slice(11, 18) : undefined;
    const daily = entry.reference === `${entry.movement}-${entry.day}`;
    const id = entryIdOf(entry.period, {
      currency: entry.currency,
      day: entry.day,
      kind: entry.movement,
      ...(adjusts ? { adjusts } : {}),
      payout: adjusts || daily ? null : entry.reference,
    });
    return { id, ...rest };
  });
}

/**
 * Live money only (a ledger books no test payments), summed over accounts per day, kind and currency; and the
 * adjustments per month of origin, kind and currency, dated the period's first day.
 */
export function journalMovementsOf(
  movements: MovementRow[],
  adjustments: {
    month: string;
    key: { account_type: string; currency: string };
    totals: Record<MovementKind, number>;
  }[],
  period: string,
): JournalMovement[] {
  const addAmount = (entry: JournalMovement, row: { amount: number }) => {
    entry.amount += row.amount;
  };
  const sums = sumByKey(
    movements.filter((row) => row.account_type === 'live'),
    (row) => `${row.currency}\u0000${row.day}\u0000${row.kind}\u0000${row.reference ?? ''}`,
    (row): JournalMovement => ({
      currency: row.currency,
      day: row.day,
      kind: row.kind,
      reference: row.reference,
      amount: 0,
    }),
    addAmount,
  );
  const adjusted = adjustments
    .filter(({ key }) => key.account_type === 'live')
    .flatMap(({ month, key, totals }) =>
      (Object.entries(totals) as [MovementKind, number][]).map(([kind, amount]) => ({
        month,
        currency: key.currency,
        kind,
        amount,
      })),
    );
  sumByKey(
    adjusted,
    (row) => `${row.currency}\u0000adjust\u0000${row.month}\u0000${row.kind}`,
    (row): JournalMovement => ({
      currency: row.currency,
      day: `${period}-01`,
      kind: row.kind,
      reference: null,
      amount: 0,
      adjusts: row.month,
    }),
    addAmount,
    sums,
  );
  return sortedByKey(
    [...sums.values()].filter((entry) => entry.amount !== 0),
    movementOrderOf,
  );
}

/**
 * The report's order of journal movements (sortedByKey): the period's own before its adjustments, per currency,
 * day and kind, a day's payouts by id before its sum.
 */
const movementOrderOf = (movement: JournalMovement) =>
  [
    movement.adjusts ? '1' : '0',
    movement.currency,
    movement.adjusts ?? '',
    movement.day,
    movement.kind,
    movement.reference === null ? '\u0001' : `\u0000${movement.reference}`,
  ].join('\u0000');
