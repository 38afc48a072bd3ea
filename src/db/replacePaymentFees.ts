import type { Queryable } from './pool.ts';

/** Makes a payment's fee rows exactly those of its newest snapshot (fees arrive asynchronously). */
export async function replacePaymentFees(db: Queryable, paymentId: string, fees: Record<string, unknown>[]) {
  await db.query(
    `with incoming as (
       select * from jsonb_populate_recordset(null::payment_fees, $2::jsonb)
     ), removed as (
       delete from payment_fees where payment_id = $1::text and id not in (select id from incoming)
     )
     insert into payment_fees select * from incoming
     on conflict (id) do update set
       payment_id = excluded.payment_id, type = excluded.type, amount = excluded.amount,
       remaining_amount = excluded.remaining_amount, currency = excluded.currency,
       source_configuration_id = excluded.source_configuration_id, source_fee_type = excluded.source_fee_type,
       snapshot_updated_at = excluded.snapshot_updated_at`,
    [paymentId, JSON.stringify(fees)],
  );
}
