import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { sequenceChanges } from './sequenceChanges.ts';

/**
 * How often the worker numbers committed changes: a change waits at most this (plus one run) before the feed
 * and forwarding can serve it, well inside forwarding's 2 s lag target. A run with nothing to number is one
 * indexed look and a lock of one row.
 */
export const SEQUENCING_INTERVAL_MS = 100;

// After an error (the database gone, say) the loop waits longer each time, up to this.
const MAX_ERROR_WAIT_MS = 10_000;

/** Numbers committed changes every `intervalMs` until stopped; returns the stop function. */
export function startChangeSequencing(
  context: { pool: Pool; log: Logger },
  intervalMs = SEQUENCING_INTERVAL_MS,
): () => Promise<void> {
  const stopping = new AbortController();
  const log = context.log.child({ job: 'sequence-changes' });
  const wait = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  async function loop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      try {
        await sequenceChanges(context.pool);
        errors = 0;
        await wait(intervalMs);
      } catch (err) {
        errors += 1;
        log.error(err, 'sequence-changes: could not number committed changes; trying again');
        await wait(Math.min(intervalMs * 2 ** errors, MAX_ERROR_WAIT_MS));
      }
    }
  }

  const running = loop();
  return async () => {
    stopping.abort();
    await running;
  };
}
