import type { Queryable } from './pool.ts';

export type RepricingRow = { currency: string; payments: number; charged: number; repriced: number };

/**
 * The fees a sub account was charged since `since` by configurations of `feeType`, and the same payments
 * re-priced with another configuration, per currency. The seed's formula in exact numeric arithmetic:
 * amount × rate / 100 + flat, capped, rounded half-up.
 */
export async function sumRepricing(
  db: Queryable,
  query: {
    accountId: string;
    feeType: string;
    since: Date;
    variableRate: string;
    transactionFeeCents: number;
    feeCapCents: number | null;
  },
): Promise<RepricingRow[]> {
  const { rows } = await db.query<RepricingRow>(
    `with charged as (
       select p.currency, p.amount, f.amount as fee,
              p.amount * $4::numeric / 100 + $5::bigint as raw
         from payments p join payment_fees f on f.payment_id = p.id
        where p.account_id = $1::text and f.source_fee_type = $2::text and p.created_at >= $3::timestamptz
     )
     select currency, count(*)::int as payments, sum(fee)::bigint as charged,
            sum(round(case when $6::bigint is null then raw else least(raw, $6::bigint) end))::bigint as repriced
       from charged group by currency order by currency`,
    [
      query.accountId,
      query.feeType,
      query.since,
      query.variableRate,
      query.transactionFeeCents,
      query.feeCapCents,
    ],
  );
  return rows;
}
