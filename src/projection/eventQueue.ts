import type { Queryable } from '../db/pool.ts';
import { paymentIdOf } from '../ingest/envelope.ts';
import { rawText, withParsedBody } from '../ingest/queries.ts';

export type EventToProcess = {
  id: number;
  event_name: string;
  account_id: string;
  account_type: string;
  /** `stored` (its wait is in `event_queue` / `event_failures`), or the previous release's `received`/`failed`. */
  status: string;
  received_at: Date;
  source: 'webhook' | 'api';
  body: { data: Record<string, unknown> };
  event_id: string | null;
  /** The trace context of the request that stored it (docs/observability.md), when tracing was on. */
  traceparent: string | null;
};

// A delivery's body is stored as raw bytes only, parsed here, in Node: a body Postgres's jsonb would refuse
// (a number beyond its range) is processed like any other.
const TO_PROCESS = `id, event_name, account_id, account_type, status, received_at, source, event_id,
  headers->>'traceparent' as traceparent, ${rawText('events')}`;

// Claimed deliveries are never quarantined or purged: each has a body.
type ClaimedRow = Omit<EventToProcess, 'body'> & { raw_text: string | null };

const parsedClaim = (row: ClaimedRow) => withParsedBody(row) as EventToProcess;

// Rows the previous release's web stored (`received`) or its worker failed, claimed on the row itself as that
// release's worker claims them, so the two never take the same delivery during a rolling deploy.
const PREVIOUS_RELEASE_WAITING = `status = 'received' or (status = 'failed' and retry_at is not null and retry_at <= now())`;

/**
 * Claims up to `limit` deliveries waiting to be projected, oldest first, with the failed ones due for a retry:
 * their `event_queue` and `event_failures` entries are locked until the caller's transaction ends, which
 * deletes them once it has committed their projections. Entries another worker holds are skipped, and a worker
 * that dies releases its entries with its connection, so another takes them over at once.
 */
export async function claimEventsToProcess(db: Queryable, limit: number): Promise<EventToProcess[]> {
  const { rows } = await db.query<ClaimedRow>(
    `with queued as (select id from event_queue order by id limit $1::int for update skip locked),
          due as (select id from event_failures where retry_at <= now() order by id limit $1::int
                     for update skip locked),
          previous as (select id from events where ${PREVIOUS_RELEASE_WAITING}
                        order by id limit $1::int for update skip locked)
     select ${TO_PROCESS} from events
      where id in (select id from queued union all select id from due union all select id from previous)
      order by id`,
    [limit],
  );
  return rows.map(parsedClaim);
}

/**
 * Locks those of these deliveries that wait to be projected (queued, failed, or waiting as the previous release
 * keeps them) for the caller's transaction, waiting for a worker that holds one, and reads them.
 */
export async function lockEventsToProcess(db: Queryable, ids: number[]): Promise<EventToProcess[]> {
  const { rows } = await db.query<ClaimedRow>(
    `with queued as (select id from event_queue where id = any($1::bigint[]) for update),
          failed as (select id from event_failures where id = any($1::bigint[]) for update),
          previous as (select id from events where id = any($1::bigint[]) and status in ('received', 'failed')
                          for update)
     select ${TO_PROCESS} from events
      where id in (select id from queued union all select id from failed union all select id from previous)
      order by id`,
    [ids],
  );
  return rows.map(parsedClaim);
}

// Back-off of a delivery that failed: 4, 8, 16, 32 s; after the fifth attempt it stays failed, visible, until
// `tally reprocess --failed` (what pg-boss did with the per-delivery jobs before).
export const PROCESSING_ATTEMPTS = 5;

/**
 * Leaves the delivery visible as failed, with why, and when it is tried again (never, with `retry: false`); a
 * later success clears it. A row the previous release stored takes this release's form, attempts kept.
 */
export async function markEventFailed(
  db: Queryable,
  event: EventToProcess,
  error: string,
  { retry }: { retry: boolean } = { retry: true },
): Promise<void> {
  await db.query(
    `with queued as (delete from event_queue where id = $1::bigint),
          previous as (update events set status = 'stored', payment_id = $4::text
                        where id = $1::bigint and status in ('received', 'failed') returning attempts),
          attempt as (select 1 + coalesce((select attempts from previous), 0) as n)
     insert into event_failures as f (id, attempts, error, retry_at, failed_at)
     select $1::bigint, n, $2::text,
            case when $5::boolean and n < $3::int then now() + make_interval(secs => 2 * 2 ^ n) end, now()
       from attempt
     on conflict (id) do update set
       attempts = f.attempts + 1, error = excluded.error, failed_at = excluded.failed_at,
       retry_at = case when $5::boolean and f.attempts + 1 < $3::int
                       then now() + make_interval(secs => 2 * 2 ^ (f.attempts + 1)) end`,
    [event.id, error, PROCESSING_ATTEMPTS, paymentIdOf(event.body?.data), retry],
  );
}

/**
 * Hands a failed delivery back to the worker at once, with its attempts counted afresh (a person asked); one
 * already waiting stays as it is.
 */
export async function queueForProcessing(db: Queryable, id: number): Promise<void> {
  await db.query(
    `with failed as (delete from event_failures where id = $1::bigint returning id),
          previous as (update events set status = 'received', attempts = 0, retry_at = null
                        where id = $1::bigint and status = 'failed')
     insert into event_queue (id) select id from failed on conflict do nothing`,
    [id],
  );
}

/**
 * Ends the wait of projected deliveries in the transaction that commits their projections: their queue and
 * failure entries are deleted and the time is kept in `processed_events`, so the raw log's row is never
 * written again. A row the previous release stored is marked processed on the row, as that release did.
 */
export async function markEventsProcessed(db: Queryable, events: EventToProcess[]): Promise<void> {
  const previous = events.filter((event) => event.status !== 'stored');
  await db.query(
    `with queued as (delete from event_queue where id = any($1::bigint[])),
          failed as (delete from event_failures where id = any($1::bigint[])),
          processed as (insert into processed_events (id, processed_at)
                        select id, now() from unnest($1::bigint[]) as id
                        on conflict (id) do update set processed_at = excluded.processed_at)
     update events e set status = 'processed', processed_at = now(), error = null, attempts = 0, retry_at = null,
            payment_id = p.payment_id
       from unnest($2::bigint[], $3::text[]) as p(id, payment_id)
      where e.id = p.id`,
    [
      events.map((event) => event.id),
      previous.map((event) => event.id),
      previous.map((event) => paymentIdOf(event.body?.data)),
    ],
  );
}
