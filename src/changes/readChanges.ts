import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from '../db/pool.ts';
import { type FeedFilter, type FeedRead, readFeed } from './feedQueries.ts';
import { hasUnsequencedChanges, sequenceChanges } from './sequenceChanges.ts';

/** How often a waiting read looks again: each look borrows a connection for two short queries only. */
export const WAIT_POLL_MS = 200;

export type ChangesRequest = {
  /** The position to read after; null: from the oldest change kept. */
  after: number | null;
  filter: FeedFilter;
  limit: number;
  /** How long to wait for a change when there is none yet. */
  waitMs: number;
  /** Aborted when the client has gone: a waiting read stops looking. */
  signal: AbortSignal;
};

/** A read, or the oldest position still served when `after` is older than what retention kept. */
export type ChangesAnswer =
  | (FeedRead & { after: number; expired: false })
  | { expired: true; oldest: number };

/**
 * Reads the feed after a position, first numbering committed changes that have no position yet (the worker
 * does so too; this only saves a reader its interval). With `waitMs`, looks again every `WAIT_POLL_MS` until
 * a change is there or the time is up, holding no connection in between.
 */
export async function readChanges(pool: Pool, request: ChangesRequest): Promise<ChangesAnswer> {
  const deadline = Date.now() + request.waitMs;
  for (;;) {
    if (await hasUnsequencedChanges(pool)) await sequenceChanges(pool);
    const read = await readFeed(pool, request.after ?? 0, request.filter, request.limit);
    if (request.after !== null && request.after < read.purgedThrough)
      return { expired: true, oldest: read.purgedThrough };
    const after = request.after ?? read.purgedThrough;
    const remaining = deadline - Date.now();
    if (read.changes.length > 0 || remaining <= 0 || request.signal.aborted)
      return { ...read, after, expired: false };
    await sleep(Math.min(WAIT_POLL_MS, remaining), undefined, { signal: request.signal }).catch(
      () => undefined,
    );
  }
}
