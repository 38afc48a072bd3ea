import type { Queryable } from '../db/pool.ts';
import { REBUILD_LOCK } from '../db/rebuildLock.ts';
import { rawText, withParsedBody } from '../ingest/queries.ts';
import type { UnknownValue } from './unknownValues.ts';

export type EventToProcess = {
  id: number;
  event_name: string;
  account_id: string;
  account_type: string;
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

/**
 * Claims up to `limit` deliveries waiting to be projected (received, or failed and due for a retry), oldest
 * first, locked until the caller's transaction ends. Rows another worker holds are skipped, and a worker that
 * dies releases its rows with its connection: the raw log is the worker's queue. While a rebuild holds its
 * lock, nothing is claimed: the rebuild projects every delivery itself, in order. The claim holds the lock
 * shared until its transaction ends, so a rebuild starting waits for the batches being projected.
 */
export async function claimEventsToProcess(db: Queryable, limit: number): Promise<EventToProcess[]> {
  const { rows } = await db.query<ClaimedRow>(
    `select ${TO_PROCESS} from events
      where (status = 'received' or (status = 'failed' and retry_at is not null and retry_at <= now()))
        and (select pg_try_advisory_xact_lock_shared(${REBUILD_LOCK}))
      order by id limit $1::int
        for update skip locked`,
    [limit],
  );
  return rows.map(parsedClaim);
}

/** Locks these deliveries for the caller's transaction (waiting for a worker that holds one) and reads them. */
export async function lockEventsToProcess(db: Queryable, ids: number[]): Promise<EventToProcess[]> {
  const { rows } = await db.query<ClaimedRow>(
    `select ${TO_PROCESS} from events where id = any($1::bigint[]) order by id for update`,
    [ids],
  );
  return rows.map(parsedClaim);
}

// Back-off of a delivery that failed: 4, 8, 16, 32 s; after the fifth attempt it stays failed, visible, until
// `tally reprocess --failed` (what pg-boss did with the per-delivery jobs before).
export const PROCESSING_ATTEMPTS = 5;

/** The payment a delivery is about (the payment itself, or what names it), for the console's timeline. */
export function paymentIdOf(event: EventToProcess): string | null {
  const data: Record<string, unknown> | undefined = event.body?.data;
  const id = typeof data === 'object' && data !== null ? (data.payment_id ?? data.id) : undefined;
  return typeof id === 'string' && id.startsWith('py_') ? id : null;
}

/**
 * Leaves the delivery visible as failed, with why, and when it is tried again (never, with `retry: false`); a
 * later success clears it.
 */
export async function markEventFailed(
  db: Queryable,
  event: EventToProcess,
  error: string,
  { retry }: { retry: boolean } = { retry: true },
): Promise<void> {
  await db.query(
    `update events set status = 'failed', error = $2::text, attempts = attempts + 1, payment_id = $4::text,
            retry_at = case when $5::boolean and attempts + 1 < $3::int
                            then now() + make_interval(secs => 2 * 2 ^ (attempts + 1)) end
      where id = $1::bigint`,
    [event.id, error, PROCESSING_ATTEMPTS, paymentIdOf(event), retry],
  );
}

/** Hands a failed delivery back to the worker at once, with its attempts counted afresh (a person asked). */
export async function queueForProcessing(db: Queryable, id: number): Promise<void> {
  await db.query(
    `update events set status = 'received', attempts = 0, retry_at = null
      where id = $1::bigint and status in ('failed', 'received')`,
    [id],
  );
}

/** Marks deliveries processed, with the payment each is about (for the console's timeline). */
export async function markEventsProcessed(db: Queryable, events: EventToProcess[]): Promise<void> {
  await db.query(
    `update events e set status = 'processed', processed_at = now(), error = null, attempts = 0, retry_at = null,
            payment_id = p.payment_id
       from unnest($1::bigint[], $2::text[]) as p(id, payment_id)
      where e.id = p.id`,
    [events.map((event) => event.id), events.map(paymentIdOf)],
  );
}

export type UnknownValueSeen = UnknownValue & { receivedAt: Date };

/**
 * Adds one delivery per value seen to `unknown_values`, in one statement for a whole batch. Times are the
 * deliveries' own, so a rebuild from the raw log gives the same rows.
 */
export async function countUnknownValues(db: Queryable, values: UnknownValueSeen[]): Promise<void> {
  if (values.length === 0) return;
  await db.query(
    `insert into unknown_values (field, value, deliveries, first_seen_at, last_seen_at)
     select field, value, count(*), min(received_at), max(received_at)
       from unnest($1::text[], $2::text[], $3::timestamptz[]) as v(field, value, received_at)
      group by field, value
      order by field, value
     on conflict (field, value) do update set
       deliveries = unknown_values.deliveries + excluded.deliveries,
       first_seen_at = least(unknown_values.first_seen_at, excluded.first_seen_at),
       last_seen_at = greatest(unknown_values.last_seen_at, excluded.last_seen_at)`,
    [
      values.map((value) => value.field),
      values.map((value) => value.value),
      values.map((value) => value.receivedAt),
    ],
  );
}

export const PROJECTION_TABLES = [
  'payments',
  'payment_fees',
  'refunds',
  'returned_fees',
  'checkouts',
  'forwarding_requests',
  'forwarding_outcomes',
  'disputes',
  'payouts',
  'payout_lines',
  'payout_line_counts',
  'unknown_values',
  'payment_declines',
] as const;

/**
 * Empties every projection and marks every non-quarantined delivery as waiting to be processed again,
 * except those whose body retention purged: they cannot be replayed, and stay as they were.
 */
export async function resetProjections(db: Queryable): Promise<void> {
  await db.query(`truncate ${PROJECTION_TABLES.join(', ')}`);
  await db.query(
    `update events set status = 'received', processed_at = null, error = null, attempts = 0, retry_at = null
      where status <> 'quarantined' and body_purged_at is null`,
  );
}
