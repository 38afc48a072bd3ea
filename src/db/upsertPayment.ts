import { newerWinsUpsert } from './newerWins.ts';
import type { Queryable } from './pool.ts';

const SQL = `${newerWinsUpsert('payments', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'amount',
        'currency',
        'capture_strategy',
        'captured',
        'payment_mode',
        'method_kind',
        'card_brand',
        'expedited',
        'fee_amount',
        'application_fee_amount',
        'amount_refunded',
        'returned',
        'amount_returned',
        'error_code',
        'error_description',
        'checkout_id',
        'payment_method_id',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_terminal', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
    { key: ['fees_updated_at', 'fees_event_row_id'], columns: [] },
  ],
  earliest: ['authorized_at', 'captured_at', 'succeeded_at', 'failed_at', 'canceled_at'],
})}
  returning event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as current,
            fees_event_row_id = ($1::jsonb ->> 'event_row_id')::bigint as fees_current`;

/**
 * Upserts a payment snapshot; `current` / `feesCurrent` say whether this
 * snapshot (its fields / its fee list) is now the one shown.
 */
export async function upsertPayment(
  db: Queryable,
  row: Record<string, unknown>,
): Promise<{ current: boolean; feesCurrent: boolean }> {
  const { rows } = await db.query<{ current: boolean; fees_current: boolean }>(SQL, [row]);
  return { current: rows[0]?.current ?? false, feesCurrent: rows[0]?.fees_current ?? false };
}
