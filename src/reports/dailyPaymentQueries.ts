import type { Queryable } from '../db/pool.ts';
import { SETTLED_PAYMENT_STATUSES, sqlStatuses } from '../domain/paymentStatuses.ts';

export type DailyPaymentRow = {
  account_type: string;
  account_id: string;
  currency: string;
  payments: number;
  gross: number;
  fees: number;
  processing_fees: number;
  platform_fees: number;
  other_fees: number;
  configured_fees: number;
  explicit_fees: number;
  legacy_application_fees: number;
};

const SETTLED = sqlStatuses(SETTLED_PAYMENT_STATUSES);

/**
 * Per account and currency: the day's settled payments, their gross and their fees by type and source, summed
 * from the fee totals each payment row keeps of its shown fee list (0 without one), in one scan of the day.
 */
export async function sumDailyPayments(db: Queryable, from: Date, to: Date): Promise<DailyPaymentRow[]> {
  const { rows } = await db.query<DailyPaymentRow>(
    `select account_type, account_id, currency, count(*)::int as payments, sum(amount)::bigint as gross,
            coalesce(sum(application_fee_amount), 0)::bigint as legacy_application_fees,
            sum(fees_total)::bigint as fees,
            sum(fees_processing)::bigint as processing_fees,
            sum(fees_platform)::bigint as platform_fees,
            sum(fees_other)::bigint as other_fees,
            sum(fees_configured)::bigint as configured_fees,
            sum(fees_explicit)::bigint as explicit_fees
       from payments
      where created_at >= $1::timestamptz and created_at < $2::timestamptz and status in ${SETTLED}
      group by 1, 2, 3
      order by 1, 2, 3`,
    [from, to],
  );
  return rows;
}

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

/**
 * Per account and currency: the day's succeeded refunds (of any day's payments) and the fees they returned.
 * The day is `coalesce(created_at, updated_at)`, spelt out so that Postgres estimates how many refunds it
 * holds (a coalesce it guesses at 0.5 %, and then looks their payments up one by one).
 */
export async function sumDailyRefunds(db: Queryable, from: Date, to: Date): Promise<DailyRefundRow[]> {
  const { rows } = await db.query<DailyRefundRow>(
    `with day as (
       select r.id, r.amount, p.account_type, p.account_id, p.currency
         from refunds r join payments p on p.id = r.payment_id
        where r.status in ${SUCCEEDED_REFUND}
          and ((r.created_at >= $1::timestamptz and r.created_at < $2::timestamptz)
               or (r.created_at is null and r.updated_at >= $1::timestamptz and r.updated_at < $2::timestamptz))
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
