import type { Queryable } from './pool.ts';

export type DailyDisputeRow = {
  account_type: string;
  account_id: string;
  currency: string;
  opened: number;
  opened_amount: number;
  won: number;
  won_amount: number;
  lost: number;
  lost_amount: number;
  other: number;
  other_amount: number;
  open: number;
  at_risk: number;
};

// Statuses the provider documents, plus `forfeited` (set by `payment.dispute.forfeited`), which loses the
// money like `lost`. Any other value is kept verbatim by the projection and counted here as `other`.
const OPEN = `('needs_response', 'under_review')`;
const LOST = `('lost', 'forfeited')`;
const KNOWN = `('needs_response', 'under_review', 'won', 'lost', 'forfeited')`;

/**
 * Per account and currency: disputes opened in [from, to), won, lost and in an unknown status in that day,
 * and the disputes open now with the amount at risk.
 *
 * The day a dispute closed: the dispute carries no closed-at time and Tally keeps no per-status event time,
 * so its `updated_at` (the provider's time of its last change) is the best available proxy. For a closed
 * dispute that is the close, unless the provider changed it again later, which moves it to that later day.
 * (`status_updated_at` is no better: it is the ranking key and moves with every later closed snapshot.)
 *
 * Open and at risk are a current state, like open findings: what the report's snapshot holds when it is
 * built, whatever day it covers. No time filter on the provider's clock: what is stored is already known.
 * A dispute without `created_at` counts as opened on its `updated_at`.
 */
export async function sumDailyDisputes(db: Queryable, from: Date, to: Date): Promise<DailyDisputeRow[]> {
  const { rows } = await db.query<DailyDisputeRow>(
    `with relevant as (
       select account_type, account_id, currency, coalesce(amount, 0) as amount, status,
              coalesce(created_at, updated_at) >= $1::timestamptz and coalesce(created_at, updated_at) < $2::timestamptz as opened_in_day,
              updated_at >= $1::timestamptz and updated_at < $2::timestamptz as updated_in_day
         from disputes
        where (coalesce(created_at, updated_at) >= $1::timestamptz and coalesce(created_at, updated_at) < $2::timestamptz)
           or (updated_at >= $1::timestamptz and updated_at < $2::timestamptz)
           or status in ${OPEN}
     )
     select account_type, account_id, currency,
            count(*) filter (where opened_in_day)::int as opened,
            coalesce(sum(amount) filter (where opened_in_day), 0)::bigint as opened_amount,
            count(*) filter (where updated_in_day and status = 'won')::int as won,
            coalesce(sum(amount) filter (where updated_in_day and status = 'won'), 0)::bigint as won_amount,
            count(*) filter (where updated_in_day and status in ${LOST})::int as lost,
            coalesce(sum(amount) filter (where updated_in_day and status in ${LOST}), 0)::bigint as lost_amount,
            count(*) filter (where updated_in_day and coalesce(status, '') not in ${KNOWN})::int as other,
            coalesce(sum(amount) filter (where updated_in_day and coalesce(status, '') not in ${KNOWN}), 0)::bigint as other_amount,
            count(*) filter (where status in ${OPEN})::int as open,
            coalesce(sum(amount) filter (where status in ${OPEN}), 0)::bigint as at_risk
       from relevant
      group by 1, 2, 3
      order by 1, 3, 2`,
    [from, to],
  );
  return rows;
}
