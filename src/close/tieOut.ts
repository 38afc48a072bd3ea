import type { Queryable } from '../db/pool.ts';
import {
  ITEMS_LISTED,
  type ItemWithoutLineRow,
  type LedgerStateRow,
  type LineWithoutItem,
  listItemsWithoutLine,
  listLedgerStates,
  type ProviderHeldRow,
} from './tieOutQueries.ts';

/** How far the provider's ledger as listed can be trusted for a period's tie-out. */
export const LEDGER_STATUSES = ['listed', 'stale', 'not_synced'] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/** The tie-out of one account and currency: Tally's `held_end` against the provider's own ledger. */
export type TieOut = {
  provider_held_end: number | null;
  held_difference: number | null;
  tie_out: {
    ledger: LedgerStatus;
    /** Why there is no difference, when there is none to give. */
    note: string | null;
    listed_at: string | null;
    failed_at: string | null;
    provider_lines_without_item: LineWithoutItem[];
    items_without_provider_line: (Omit<ItemWithoutLineRow, 'account_id' | 'currency' | 'at'> & {
      at: string;
    })[];
  };
};

const keyOf = (row: { account_id: string; currency: string }) => `${row.account_id}\u0000${row.currency}`;
const iso = (value: Date | null) => value?.toISOString() ?? null;

/** Whether the listing says what the provider held at `to`; a note saying why not when it does not. */
function ledgerStatusOf(state: LedgerStateRow | undefined, to: Date, now: Date) {
  if (!state?.payout_synced && !state?.listed_at)
    return {
      ledger: 'not_synced' as const,
      note: 'the payout sync does not list this account: there is no provider ledger to tie out against',
    };
  if (state.failed_at)
    return {
      ledger: 'stale' as const,
      note: `the latest ledger listing failed at ${state.failed_at.toISOString()} (${state.error ?? 'no reason given'}); the previous listing is kept and the next payout sync lists again`,
    };
  if (!state.listed_at) return { ledger: 'stale' as const, note: 'the ledger has not been listed yet' };
  if (to <= now && (!state.full_listed_at || state.full_listed_at < to))
    return {
      ledger: 'stale' as const,
      note: 'no full ledger listing has completed since the period ended',
    };
  return { ledger: 'listed' as const, note: null };
}

const byInstantThenId = (a: ItemWithoutLineRow, b: ItemWithoutLineRow) =>
  a.at.getTime() !== b.at.getTime() ? a.at.getTime() - b.at.getTime() : a.id < b.id ? -1 : 1;

function groupByKey<T extends { account_id: string; currency: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(keyOf(row), [...(groups.get(keyOf(row)) ?? []), row]);
  return groups;
}

/**
 * The tie-out of every account and currency at the period's end `to` (docs/month-end.md):
 * the provider's held balance from its ledger, the difference from Tally's `held_end`, and the items on each side
 * that explain it; null, with the reason, for an account whose ledger is not listed or is stale. The sales
 * without a line come with the payments awaiting payout (listUnpaidPayments), the provider's held lines from
 * sumProviderHeld, read alongside the rest of the report: awaited after this connection's own queries.
 */
export async function tieOutAt(
  db: Queryable,
  to: Date,
  now: Date,
  salesWithoutLine: ItemWithoutLineRow[],
  providerHeld: Promise<ProviderHeldRow[]>,
) {
  const states = new Map((await listLedgerStates(db)).map((row) => [row.account_id, row]));
  const items = groupByKey(
    [...salesWithoutLine, ...(await listItemsWithoutLine(db, to))].sort(byInstantThenId),
  );
  const held = new Map((await providerHeld).map((row) => [keyOf(row), row]));
  return (account: { account_id: string; currency: string }, heldEnd: number): TieOut => {
    const state = states.get(account.account_id);
    const { ledger, note } = ledgerStatusOf(state, to, now);
    const listed = ledger === 'listed';
    const providerHeld = held.get(keyOf(account));
    const providerHeldEnd = listed ? (providerHeld?.provider_held_end ?? 0) : null;
    return {
      provider_held_end: providerHeldEnd,
      held_difference: providerHeldEnd === null ? null : heldEnd - providerHeldEnd,
      tie_out: {
        ledger,
        note,
        listed_at: iso(state?.listed_at ?? null),
        failed_at: iso(state?.failed_at ?? null),
        provider_lines_without_item: listed ? (providerHeld?.lines_without_item ?? []) : [],
        items_without_provider_line: listed
          ? (items.get(keyOf(account)) ?? [])
              .slice(0, ITEMS_LISTED)
              .map(({ account_id: _a, currency: _c, at, ...item }) => ({
                ...item,
                at: at.toISOString(),
              }))
          : [],
      },
    };
  };
}
