import type { LedgerKind, MovementKind } from '../domain/movementKinds.ts';
import { MOVEMENTS } from '../domain/movementKinds.ts';

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
  /** 1, 2, … in the period: NetSuite's external id is `tally-<period>-<n>`. */
  n: number;
  period: string;
  day: string;
  currency: string;
  movement: MovementKind;
  reference: string;
  memo: string;
  lines: [JournalLine, JournalLine];
};

/**
 * Balanced entries from the period's movements, one per business day, kind of movement and currency (a payout,
 * its reversal and its bank credit one per payout): two lines of the same amount, debit and credit as
 * MOVEMENTS says, swapped for a negative amount. Numbered in a fixed order, so the same numbers give the same
 * journal. A zero movement books nothing.
 */
export function buildJournalEntries(period: string, movements: JournalMovement[]): JournalEntry[] {
  const order = Object.keys(MOVEMENTS);
  const sorted = movements
    .filter((movement) => movement.amount !== 0)
    .toSorted(
      (a, b) =>
        a.currency.localeCompare(b.currency) ||
        a.day.localeCompare(b.day) ||
        (a.adjusts ?? '').localeCompare(b.adjusts ?? '') ||
        order.indexOf(a.kind) - order.indexOf(b.kind) ||
        (a.reference ?? '').localeCompare(b.reference ?? ''),
    );
  return sorted.map((movement, index) => {
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
      n: index + 1,
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
