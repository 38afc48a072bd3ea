import { setTimeout as sleep } from 'node:timers/promises';
import { type Pool, withTransaction } from '../db/pool.ts';
import { finishPurgeRun, purgeConflictBodies, purgeEventBodies, startPurgeRun } from './queries.ts';

// Small enough that each transaction holds its row locks for milliseconds, next to live ingest.
const BATCH_SIZE = 1000;

// After each batch the purge waits as long as the batch took: it never takes more than half of one
// connection's time from Postgres, which live ingest shares (bench:purge measures the difference).
const PAUSE_PER_BATCH_TIME = 1;

export type PurgeProgress = { events: number; conflicts: number };

/**
 * Purges the bodies of finished deliveries (and of their conflicting bodies) received before `cutoff`, one
 * short transaction per batch. Each batch commits on its own, so a purge cut short keeps what it did and
 * the next one goes on from there. Between batches it pauses as long as the last one took.
 */
export async function purgeBodies(
  pool: Pool,
  options: { cutoff: Date; now: () => Date; batchSize?: number; onBatch?: (done: PurgeProgress) => void },
): Promise<PurgeProgress> {
  const limit = options.batchSize ?? BATCH_SIZE;
  const runId = await startPurgeRun(pool, options.cutoff, options.now());
  const done: PurgeProgress = { events: 0, conflicts: 0 };
  for (const [kind, purge] of [
    ['conflicts', purgeConflictBodies],
    ['events', purgeEventBodies],
  ] as const) {
    for (;;) {
      const batch = { runId, cutoff: options.cutoff, limit, now: options.now() };
      const started = performance.now();
      const purged = await withTransaction(pool, (client) => purge(client, batch));
      done[kind] += purged;
      options.onBatch?.(done);
      if (purged < limit) break;
      await sleep((performance.now() - started) * PAUSE_PER_BATCH_TIME);
    }
  }
  await finishPurgeRun(pool, runId, options.now());
  return done;
}
