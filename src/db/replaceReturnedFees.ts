import type { Queryable } from './pool.ts';

/** Makes a refund's returned-fee rows exactly those of its newest snapshot. */
export async function replaceReturnedFees(db: Queryable, refundId: string, fees: Record<string, unknown>[]) {
  await db.query(
    `with incoming as (
       select * from jsonb_populate_recordset(null::returned_fees, $2::jsonb)
     ), removed as (
       delete from returned_fees where refund_id = $1::text and id not in (select id from incoming)
     )
     insert into returned_fees select * from incoming
     on conflict (id) do update set
       refund_id = excluded.refund_id, payment_fee_id = excluded.payment_fee_id, type = excluded.type,
       returned_amount = excluded.returned_amount, original_amount = excluded.original_amount,
       remaining_amount = excluded.remaining_amount, currency = excluded.currency`,
    [refundId, JSON.stringify(fees)],
  );
}
