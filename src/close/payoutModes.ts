import type { MovementRow } from './movementRules.ts';

/** The account_type of a payout whose account's mode the provider never stated (movementQueries.ts). */
export const UNKNOWN_MODE = 'unknown';

export type PayoutModeUnknownRow = {
  payout_id: string;
  account_id: string;
  currency: string;
  day: string;
  kind: MovementRow['kind'];
  amount: number;
};

/**
 * The open item `payout_mode_unknown`: each movement of a payout whose account Tally cannot tell live or test.
 * The journal books live money only, so these are left out of it until the account's mode is known. Per account,
 * currency, day and kind, by payout id.
 */
export function payoutsOfUnknownMode(movements: MovementRow[]): PayoutModeUnknownRow[] {
  return movements
    .filter((row) => row.account_type === UNKNOWN_MODE && row.reference !== null)
    .map((row) => ({
      payout_id: row.reference as string,
      account_id: row.account_id,
      currency: row.currency,
      day: row.day,
      kind: row.kind,
      amount: row.amount,
    }))
    .sort(
      (a, b) =>
        compare(a.account_id, b.account_id) ||
        compare(a.currency, b.currency) ||
        compare(a.day, b.day) ||
        compare(a.kind, b.kind) ||
        compare(a.payout_id, b.payout_id),
    );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
