import type { Queryable } from '../db/pool.ts';
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
};

/** The stored delivery a process-event job points at (null if it is gone). */
export async function findEventToProcess(db: Queryable, id: number): Promise<EventToProcess | null> {
  const { rows } = await db.query<EventToProcess>(
    `select id, event_name, account_id, account_type, status, received_at, source, body from events where id = $1::bigint`,
    [id],
  );
  return rows[0] ?? null;
}

/** The stored deliveries that a batch of process-event jobs points at. */
export async function findEventsToProcess(db: Queryable, ids: number[]): Promise<EventToProcess[]> {
  const { rows } = await db.query<EventToProcess>(
    `select id, event_name, account_id, account_type, status, received_at, source, body
       from events where id = any($1::bigint[])`,
    [ids],
  );
  return rows;
}

/** Leaves the delivery visible as failed, with why; a later successful retry clears it. */
export async function markEventFailed(db: Queryable, id: number, error: string): Promise<void> {
  await db.query(`update events set status = 'failed', error = $2::text where id = $1::bigint`, [id, error]);
}

export async function markEventsProcessed(db: Queryable, ids: number[]): Promise<void> {
  await db.query(
    `update events set status = 'processed', processed_at = now(), error = null where id = any($1::bigint[])`,
    [ids],
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
  'unknown_values',
] as const;

/**
 * Empties every projection and marks every non-quarantined delivery as waiting to be processed again,
 * except those whose body retention purged: they cannot be replayed, and stay as they were.
 */
export async function resetProjections(db: Queryable): Promise<void> {
  await db.query(`truncate ${PROJECTION_TABLES.join(', ')}`);
  await db.query(
    `update events set status = 'received', processed_at = null, error = null
      where status <> 'quarantined' and body_purged_at is null`,
  );
}
