import type { Queryable } from './pool.ts';

export type DailyRefundRow = {
  account_type: string;
  account_id: string;
  currency: string;
  refunds: number;
  refunded: number;
  returned_fees: number;
  returned_processing_fees: number;
  returned_platform_fees: number;
};

// The provider's docs say `succeeded`; real refunds also show `success`, the same state (stored verbatim).
export const SUCCEEDED_REFUND = `('succeeded', 'success')`;

/** Per account and currency: the day's succeeded refunds (of any day's payments) and the fees they returned. */
export async function sumDailyRefunds(db: Queryable, from: Date, to: Date): Promise<DailyRefundRow[]> {
  const { rows } = await db.query<DailyRefundRow>(
    `with day as (
       select r.id, r.amount, p.account_type, p.account_id, p.currency
         from refunds r join payments p on p.id = r.payment_id
        where r.status in ${SUCCEEDED_REFUND} and coalesce(r.created_at, r.updated_at) >= $1::timestamptz
          and coalesce(r.created_at, r.updated_at) < $2::timestamptz
     ), totals as (
       select account_type, account_id, currency, count(*)::int as refunds, sum(amount)::bigint as refunded
         from day group by 1, 2, 3
     ), returned as (
       select d.account_type, d.account_id, d.currency,
              coalesce(sum(f.returned_amount), 0)::bigint as returned_fees,
              coalesce(sum(f.returned_amount) filter (where f.type = 'processing_fee'), 0)::bigint as returned_processing_fees,
              coalesce(sum(f.returned_amount) filter (where f.type = 'platform_fee'), 0)::bigint as returned_platform_fees
         from day d join returned_fees f on f.refund_id = d.id
        group by 1, 2, 3
     )
     select t.*, coalesce(r.returned_fees, 0) as returned_fees,
            coalesce(r.returned_processing_fees, 0) as returned_processing_fees,
            coalesce(r.returned_platform_fees, 0) as returned_platform_fees
       from totals t left join returned r using (account_type, account_id, currency)
      order by t.account_type, t.account_id, t.currency`,
    [from, to],
  );
  return rows;
}
