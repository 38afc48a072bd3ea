import type { Queryable } from './pool.ts';

/**
 * The advisory lock a rebuild (`tally reprocess --all`, src/projection/rebuild.ts) holds while the projections
 * are half built. The worker's claim of deliveries takes it shared for its transaction, and its job runner
 * asks whether it is free before it starts a batch: neither starts work on projections a rebuild is remaking
 * (a job already running goes on).
 */
export const REBUILD_LOCK = `hashtextextended('tally:rebuild', 0)`;

/** Whether a rebuild holds the lock, or waits for it: taken shared and given back at once to tell. */
export async function isRebuildRunning(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ running: boolean }>(
    `select case when pg_try_advisory_lock_shared(${REBUILD_LOCK})
                 then not pg_advisory_unlock_shared(${REBUILD_LOCK})
                 else true end as running`,
  );
  return rows[0]?.running ?? false;
}
