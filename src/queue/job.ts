import type { Queue } from 'pg-boss';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from './boss.ts';

export type JobContext = {
  pool: Pool;
  boss: Boss;
  config: Config;
  log: Logger;
  now: () => Date;
};

/** One pg-boss queue: `jobs/<name>.ts` exports one of these. */
export type JobDefinition<Payload = unknown> = {
  name: string;
  payloadSchema: z.ZodType<Payload>;
  /** Queue options: retries, back-off, expiry. */
  queue?: Omit<Queue, 'name'>;
  /** Jobs fetched per poll; each is still handled and settled on its own. Default 1. */
  batchSize?: number;
  /** True for jobs that `POST /api/jobs/:name` and the clock may start with no payload. */
  scheduled?: boolean;
  handle: (payload: Payload, context: JobContext, jobId: string) => Promise<void>;
  /** Handles a fetched batch at once (used instead of `handle` when present): per payload, its error or null. */
  handleBatch?: (payloads: Payload[], context: JobContext) => Promise<unknown[]>;
};

export function defineJob<Payload>(job: JobDefinition<Payload>): JobDefinition<Payload> {
  return job;
}

/**
 * Creates every queue Tally uses, or brings an existing one's retry and expiry options up to date (its
 * policy and maximum retry delay are fixed at creation); safe to repeat, so each process does it at start.
 */
export async function createQueues(boss: Boss, jobs: readonly JobDefinition[]): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  for (const job of jobs) {
    if (!existing.has(job.name)) {
      await boss.createQueue(job.name, job.queue);
    } else if (job.queue) {
      const { policy: _policy, retryDelayMax: _max, ...options } = job.queue;
      await boss.updateQueue(job.name, options);
    }
  }
}
