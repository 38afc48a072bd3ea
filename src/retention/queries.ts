import type { Queryable } from '../db/pool.ts';

// Only deliveries whose processing is over: processed, or quarantined (never processed, kept as evidence).
// A delivery received or failed still needs its body, whatever its age.
const FINISHED = `status in ('processed', 'quarantined')`;

/** Records the start of a purge run and returns its id. */
export async function startPurgeRun(db: Queryable, cutoff: Date, now: Date): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'insert into body_purges (cutoff, started_at) values ($1::timestamptz, $2::timestamptz) returning id',
    [cutoff, now],
  );
  return (rows[0] as { id: number }).id;
}

export async function finishPurgeRun(db: Queryable, runId: number, now: Date): Promise<void> {
  await db.query('update body_purges set finished_at = $2::timestamptz where id = $1::bigint', [runId, now]);
}

/**
 * Empties the raw and parsed bodies of up to `limit` finished deliveries received before `cutoff`, oldest
 * first, and counts them on the run, in the caller's (short) transaction. Rows another transaction holds
 * (a worker, a second purge) are skipped, never waited for.
 */
export async function purgeEventBodies(
  db: Queryable,
  batch: { runId: number; cutoff: Date; limit: number; now: Date },
): Promise<number> {
  const { rows } = await db.query<{ purged: number }>(
    `with batch as (
       select id from events
        where body_purged_at is null and received_at < $1::timestamptz and ${FINISHED}
        order by received_at
        limit $2::int
        for update skip locked),
     purged as (
       update events e set raw_body = ''::bytea, body_purged_at = $3::timestamptz
         from batch where e.id = batch.id
       returning e.id),
     counted as (
       update body_purges set purged_events = purged_events + (select count(*) from purged)
        where id = $4::bigint)
     select count(*)::int as purged from purged`,
    [batch.cutoff, batch.limit, batch.now, batch.runId],
  );
  return rows[0]?.purged ?? 0;
}

/** The same for bodies kept aside as conflicts, once their delivery is finished. */
export async function purgeConflictBodies(
  db: Queryable,
  batch: { runId: number; cutoff: Date; limit: number; now: Date },
): Promise<number> {
  const { rows } = await db.query<{ purged: number }>(
    `with batch as (
       select c.id from event_conflicts c join events e on e.event_id = c.event_id
        where c.body_purged_at is null and c.received_at < $1::timestamptz and e.${FINISHED}
        order by c.id
        limit $2::int
        for update of c skip locked),
     purged as (
       update event_conflicts c set raw_body = ''::bytea, body_purged_at = $3::timestamptz
         from batch where c.id = batch.id
       returning c.id),
     counted as (
       update body_purges set purged_conflicts = purged_conflicts + (select count(*) from purged)
        where id = $4::bigint)
     select count(*)::int as purged from purged`,
    [batch.cutoff, batch.limit, batch.now, batch.runId],
  );
  return rows[0]?.purged ?? 0;
}

/** What a purge with this cutoff would empty now (for `--dry-run` and the progress bar). */
export async function countPurgeable(
  db: Queryable,
  cutoff: Date,
): Promise<{ events: number; conflicts: number }> {
  const { rows } = await db.query<{ events: number; conflicts: number }>(
    `select (select count(*)::int from events
              where body_purged_at is null and received_at < $1::timestamptz and ${FINISHED}) as events,
            (select count(*)::int from event_conflicts c join events e on e.event_id = c.event_id
              where c.body_purged_at is null and c.received_at < $1::timestamptz and e.${FINISHED}) as conflicts`,
    [cutoff],
  );
  return rows[0] ?? { events: 0, conflicts: 0 };
}

/** For GET /api/status: the arrival time of the oldest delivery whose body is kept, and how many were purged. */
export async function summarizeRetention(
  db: Queryable,
): Promise<{ oldestKeptBodyAt: Date | null; purgedBodies: number }> {
  const { rows } = await db.query<{ oldest_kept_body_at: Date | null; purged_bodies: number }>(
    `select (select min(received_at) from events where body_purged_at is null) as oldest_kept_body_at,
            (select coalesce(sum(purged_events), 0)::bigint from body_purges) as purged_bodies`,
  );
  const row = rows[0];
  return { oldestKeptBodyAt: row?.oldest_kept_body_at ?? null, purgedBodies: row?.purged_bodies ?? 0 };
}
