import type { Queryable } from './pool.ts';
import { SUCCEEDED_REFUND } from './sumDailyRefunds.ts';

export type DailyFeesReturnedWithoutRefundRow = {
  account_type: string;
  account_id: string;
  currency: string;
  ach_return: number;
  void: number;
};

/**
 * Per account and currency: fees the provider handed back with no refund object, on the day the payment
 * failed or was canceled. An ACH return (`failed` after it had succeeded, or marked `returned`) or a void
 * (`canceled`) drops its fees' `remaining_amount` with no `rtfee_`. What a fee handed back is what left it
 * minus what succeeded refunds had already returned of it (those are counted by the refunds, on their own
 * day), floored at 0 for a fee snapshot older than a refund. A fee without `remaining_amount` says nothing.
 */
export async function sumDailyFeesReturnedWithoutRefund(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<DailyFeesReturnedWithoutRefundRow[]> {
  const { rows } = await db.query<DailyFeesReturnedWithoutRefundRow>(
    `with handed_back as (
       select id, account_type, account_id, currency,
              case when status = 'canceled' then 'void' else 'ach_return' end as reason
         from payments
        where (status = 'canceled' and canceled_at >= $1::timestamptz and canceled_at < $2::timestamptz)
           or (status = 'failed' and (succeeded_at is not null or returned is true)
               and failed_at >= $1::timestamptz and failed_at < $2::timestamptz)
     ), returned_by_refunds as (
       select rf.payment_fee_id, sum(rf.returned_amount) as returned_amount
         from handed_back h
         join refunds r on r.payment_id = h.id and r.status in ${SUCCEEDED_REFUND}
         join returned_fees rf on rf.refund_id = r.id
        group by 1
     ), fees as (
       select h.account_type, h.account_id, h.currency, h.reason,
              greatest(f.amount - f.remaining_amount - coalesce(b.returned_amount, 0), 0) as returned_amount
         from handed_back h
         join payment_fees f on f.payment_id = h.id and f.remaining_amount is not null
         left join returned_by_refunds b on b.payment_fee_id = f.id
     )
     select account_type, account_id, currency,
            coalesce(sum(returned_amount) filter (where reason = 'ach_return'), 0)::bigint as ach_return,
            coalesce(sum(returned_amount) filter (where reason = 'void'), 0)::bigint as void
       from fees
      group by 1, 2, 3
      order by 1, 3, 2`,
    [from, to],
  );
  return rows;
}
