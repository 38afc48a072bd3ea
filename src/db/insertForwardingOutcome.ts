import type { Queryable } from './pool.ts';

export type ForwardingOutcome = {
  eventRowId: number;
  forwardingRequestId: string;
  status: 'completed' | 'failed';
  failureReason: string | null;
  responseStatusCode: number | null;
  url: string | null;
};

/** Records one terminal outcome event of a forwarding request; the same event twice is stored once. */
export async function insertForwardingOutcome(db: Queryable, outcome: ForwardingOutcome): Promise<void> {
  await db.query(
    `insert into forwarding_outcomes (event_row_id, forwarding_request_id, status, failure_reason,
                                      response_status_code, url)
     values ($1::bigint, $2::text, $3::text, $4::text, $5::integer, $6::text)
     on conflict (event_row_id) do nothing`,
    [
      outcome.eventRowId,
      outcome.forwardingRequestId,
      outcome.status,
      outcome.failureReason,
      outcome.responseStatusCode,
      outcome.url,
    ],
  );
}
