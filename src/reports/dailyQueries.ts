import type { Queryable } from '../db/pool.ts';

export type DailyAchReturnRow = {
  account_type: string;
  currency: string;
  error_code: string | null;
  error_description: string | null;
  late: boolean;
  returns: number;
  amount: number;
};

/**
 * The day's ACH returns (payments that failed that day with an error code or description), by what the
 * provider sent; the caller classifies them (the code may be in either field, in either case).
 */
export async function sumDailyAchReturns(db: Queryable, from: Date, to: Date): Promise<DailyAchReturnRow[]> {
  const { rows } = await db.query<DailyAchReturnRow>(
    `select account_type, currency, error_code, error_description, succeeded_at is not null as late,
            count(*)::int as returns, sum(amount)::bigint as amount
       from payments
      where method_kind = 'ach' and status = 'failed'
        and (error_description is not null or error_code is not null)
        and failed_at >= $1::timestamptz and failed_at < $2::timestamptz
      group by 1, 2, 3, 4, 5
      order by 1, 2, 3, 4, 5`,
    [from, to],
  );
  return rows;
}

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

export type DailyForwardingRow = {
  account_type: string;
  destination: string;
  completed: number;
  completed_error_status: number;
  failed: number;
  timeout: number;
  connection_error: number;
  internal_error: number;
};

/** The day's forwarding outcomes per destination: answered (and answered ≥ 400) and failed by reason. */
export async function sumDailyForwarding(db: Queryable, from: Date, to: Date): Promise<DailyForwardingRow[]> {
  const { rows } = await db.query<DailyForwardingRow>(
    `select r.account_type, coalesce(o.url, r.url, 'unknown') as destination,
            count(*) filter (where o.status = 'completed')::int as completed,
            count(*) filter (where o.status = 'completed' and o.response_status_code >= 400)::int as completed_error_status,
            count(*) filter (where o.status = 'failed')::int as failed,
            count(*) filter (where o.failure_reason = 'timeout')::int as timeout,
            count(*) filter (where o.failure_reason = 'connection_error')::int as connection_error,
            count(*) filter (where o.failure_reason = 'internal_error')::int as internal_error
       from forwarding_outcomes o join forwarding_requests r on r.id = o.forwarding_request_id
      where coalesce(r.attempted_at, r.updated_at) >= $1::timestamptz and coalesce(r.attempted_at, r.updated_at) < $2::timestamptz
      group by 1, 2
      order by 1, 2`,
    [from, to],
  );
  return rows;
}

/** The open findings with the most money at stake (those measuring none left out), linked to their payment. */
export async function listTopFindings(db: Queryable, until: Date, limit: number) {
  const { rows } = await db.query<{
    id: number;
    code: string;
    severity: string;
    subject_type: string;
    subject_id: string;
    payment_id: string | null;
    currency: string | null;
    at_stake: number;
  }>(
    `select f.id, f.code, f.severity, f.subject_type, f.subject_id, f.currency,
            case when f.subject_type = 'payment' then f.subject_id else f.details->>'payment_id' end as payment_id,
            f.at_stake
       from findings f
      where f.first_seen_at < $1::timestamptz and f.at_stake is not null
        and (f.status in ('open', 'acknowledged') or (f.status = 'resolved' and f.resolved_at >= $1::timestamptz))
      order by f.at_stake desc, f.id
      limit $2::int`,
    [until, limit],
  );
  return rows;
}
