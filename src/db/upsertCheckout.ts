import { newerWinsUpsert } from './newerWins.ts';
import type { Queryable } from './pool.ts';

const SQL = newerWinsUpsert('checkouts', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'amount',
        'description',
        'payment_amount',
        'currency',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_rank', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
  ],
  // Set by whichever events name them: fees by the checkout, the payment by its completion. An event
  // without them never clears them; the newest snapshot that has fees decides them.
  custom: {
    fees: 'case when excluded.fees is not null and (checkouts.fees is null or (excluded.updated_at, excluded.event_row_id) > (checkouts.updated_at, checkouts.event_row_id)) then excluded.fees else checkouts.fees end',
    payment_id:
      'coalesce(least(checkouts.payment_id, excluded.payment_id), checkouts.payment_id, excluded.payment_id)',
  },
});

/** Upserts what a checkout event says about its checkout. */
export async function upsertCheckout(db: Queryable, row: Record<string, unknown>): Promise<void> {
  await db.query(SQL, [row]);
}
