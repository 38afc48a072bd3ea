import type { Queryable } from './pool.ts';

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
