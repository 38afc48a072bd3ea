import type { Queryable } from './pool.ts';

export type ForwardingOutcomeRow = {
  event_row_id: number;
  status: string;
  failure_reason: string | null;
  response_status_code: number | null;
};

export async function listForwardingOutcomes(
  db: Queryable,
  requestId: string,
): Promise<ForwardingOutcomeRow[]> {
  const { rows } = await db.query<ForwardingOutcomeRow>(
    `select event_row_id, status, failure_reason, response_status_code
       from forwarding_outcomes where forwarding_request_id = $1::text order by event_row_id`,
    [requestId],
  );
  return rows;
}
