import type { Queryable } from './pool.ts';

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

// Payments that moved money: succeeded, possibly refunded or disputed since.
const SETTLED = `('succeeded', 'partially_refunded', 'fully_refunded', 'refunded', 'disputed')`;

/** Per account and currency: the day's settled payments, their gross and their fees by type and source. */
export async function sumDailyPayments(db: Queryable, from: Date, to: Date): Promise<DailyPaymentRow[]> {
  const { rows } = await db.query<DailyPaymentRow>(
    `with day as (
       select id, account_type, account_id, currency, amount, coalesce(application_fee_amount, 0) as legacy
         from payments
        where created_at >= $1::timestamptz and created_at < $2::timestamptz and status in ${SETTLED}
     ), totals as (
       select account_type, account_id, currency, count(*)::int as payments, sum(amount)::bigint as gross,
              sum(legacy)::bigint as legacy_application_fees
         from day group by 1, 2, 3
     ), fees as (
       select d.account_type, d.account_id, d.currency,
              sum(f.amount)::bigint as fees,
              coalesce(sum(f.amount) filter (where f.type = 'processing_fee'), 0)::bigint as processing_fees,
              coalesce(sum(f.amount) filter (where f.type = 'platform_fee'), 0)::bigint as platform_fees,
              coalesce(sum(f.amount) filter (where f.type not in ('processing_fee', 'platform_fee')), 0)::bigint as other_fees,
              coalesce(sum(f.amount) filter (where f.source_configuration_id is not null), 0)::bigint as configured_fees,
              coalesce(sum(f.amount) filter (where f.source_configuration_id is null), 0)::bigint as explicit_fees
         from day d join payment_fees f on f.payment_id = d.id
        group by 1, 2, 3
     )
     select t.*, coalesce(f.fees, 0) as fees, coalesce(f.processing_fees, 0) as processing_fees,
            coalesce(f.platform_fees, 0) as platform_fees, coalesce(f.other_fees, 0) as other_fees,
            coalesce(f.configured_fees, 0) as configured_fees, coalesce(f.explicit_fees, 0) as explicit_fees
       from totals t left join fees f using (account_type, account_id, currency)
      order by t.account_type, t.account_id, t.currency`,
    [from, to],
  );
  return rows;
}
