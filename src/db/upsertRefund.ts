import { newerWinsUpsert } from './newerWins.ts';
import type { Queryable } from './pool.ts';

const SQL = `${newerWinsUpsert('refunds', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: ['payment_id', 'amount', 'reason', 'status', 'created_at', 'snapshot'],
    },
    { key: ['returned_fees_updated_at', 'returned_fees_event_row_id'], columns: [] },
  ],
})}
  returning event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as current,
            returned_fees_event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as fees_current`;

/**
 * Upserts a refund snapshot; `current` / `feesCurrent` say whether this
 * snapshot (its fields / its fee list) is now the one shown.
 */
export async function upsertRefund(
  db: Queryable,
  row: Record<string, unknown>,
): Promise<{ current: boolean; feesCurrent: boolean }> {
  const { rows } = await db.query<{ current: boolean; fees_current: boolean }>(SQL, [row]);
  return { current: rows[0]?.current ?? false, feesCurrent: rows[0]?.fees_current ?? false };
}
