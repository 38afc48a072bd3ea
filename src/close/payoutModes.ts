import type { MovementRow } from './movementRules.ts';
import { sortedByKey } from './sumByKey.ts';

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
  return sortedByKey(
    movements
      .filter((row) => row.account_type === UNKNOWN_MODE && row.reference !== null)
      .map((row) => ({
        payout_id: row.reference as string,
        account_id: row.account_id,
        currency: row.currency,
        day: row.day,
        kind: row.kind,
        amount: row.amount,
      })),
    (row) => [row.account_id, row.currency, row.day, row.kind, row.payout_id].join('\u0000'),
  );
}
