import { setTimeout as sleep } from 'node:timers/promises';
import { type Pool, withTransaction } from '../db/pool.ts';
import {
  type BatchTiming,
  type PacingStep,
  PURGE_PACING,
  type PurgePacing,
  paceAfterBatch,
  startPacing,
} from './purgePacing.ts';
import { finishPurgeRun, purgeConflictBodies, purgeEventBodies, startPurgeRun } from './queries.ts';

export type PurgeProgress = { events: number; conflicts: number };

/** One batch as it ran: how many rows it asked for and purged, what it took, and the pacing it led to. */
export type PurgeBatch = { limit: number; purged: number; timing: BatchTiming; next: PacingStep };

/**
 * Purges the bodies of finished deliveries (and of their conflicting bodies) received before `cutoff`, one
 * short transaction per batch. Each batch commits on its own, so a purge cut short keeps what it did and
 * the next one goes on from there. Between batches it pauses, and it sizes the next batch, from the last
 * one's statement and commit times (purgePacing.ts), so that live ingest keeps its commit latency.
 */
export async function purgeBodies(
  pool: Pool,
  options: {
    cutoff: Date;
    now: () => Date;
    pacing?: Partial<PurgePacing>;
    onBatch?: (done: PurgeProgress, batch: PurgeBatch) => void;
  },
): Promise<PurgeProgress> {
  const pacing = { ...PURGE_PACING, ...options.pacing };
  let state = startPacing(pacing);
  const runId = await startPurgeRun(pool, options.cutoff, options.now());
  const done: PurgeProgress = { events: 0, conflicts: 0 };
  for (const [kind, purge] of [
    ['conflicts', purgeConflictBodies],
    ['events', purgeEventBodies],
  ] as const) {
    for (;;) {
      const batch = { runId, cutoff: options.cutoff, limit: state.batchSize, now: options.now() };
      const started = performance.now();
      let statementEnded = started;
      const purged = await withTransaction(pool, async (client) => {
        const count = await purge(client, batch);
        statementEnded = performance.now();
        return count;
      });
      const timing = { statementMs: statementEnded - started, commitMs: performance.now() - statementEnded };
      const next = paceAfterBatch(pacing, state, timing);
      state = next;
      done[kind] += purged;
      options.onBatch?.(done, { limit: batch.limit, purged, timing, next });
      if (purged < batch.limit) break;
      await sleep(next.pauseMs);
    }
  }
  await finishPurgeRun(pool, runId, options.now());
  return done;
}
