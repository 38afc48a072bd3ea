import { PAYMENT_PAYOUTS_BACKFILL } from '../db/backfills.ts';
import type { Queryable } from '../db/pool.ts';

/**
 * Whether the kept first payouts (migration 0038, `payment_payouts`) count every stored payment: the backfill
 * that counts those stored before has finished. Until then the close reads the payments themselves.
 */
export async function paymentPayoutsKept(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ finished: boolean }>(
    'select finished_at is not null as finished from schema_backfills where name = $1::text',
    [PAYMENT_PAYOUTS_BACKFILL],
  );
  return rows[0]?.finished ?? false;
}
