import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Reads } from '../db/readPool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from './boss.ts';
import type { QueueDefinition } from './queueDefinition.ts';
import { type Payloads, type QueueName, queues } from './queues.ts';

export type JobContext = {
  pool: Pool;
  /** Reports read through `reads.pool`; everything else, and every write, uses `pool`. */
  reads: Reads;
  boss: Boss;
  config: Config;
  log: Logger;
  now: () => Date;
};

/** How a queue's jobs are handled: one payload at a time, or a fetched batch at once. */
export type JobHandler<Payload> = {
  /** Jobs fetched per poll; each is still settled on its own. Default 1. */
  batchSize?: number;
} & (
  | { handle: (payload: Payload, context: JobContext, jobId: string) => Promise<void>; handleBatch?: never }
  | {
      /** Per payload, in order: its error, or null. */
      handleBatch: (payloads: Payload[], context: JobContext) => Promise<unknown[]>;
      handle?: never;
    }
);

/** A queue and its handler, as the workers, the clock and POST /api/jobs/:name take them. */
export type JobDefinition<Payload = unknown> = {
  name: string;
  payloadSchema: z.ZodType<Payload>;
  queue?: QueueDefinition['queue'];
  scheduled?: boolean;
} & JobHandler<Payload>;

/** Wires a handler to its queue in the registry (`src/queue/queues.ts`): `jobs/<name>.ts` exports one. */
export function defineJob<Name extends QueueName, Handler extends JobHandler<Payloads[Name]>>(
  name: Name,
  handler: Handler,
): JobDefinition<Payloads[Name]> & Handler & { name: Name };
/** A queue outside the registry, whose jobs no sender can enqueue: only tests define one. */
export function defineJob<Payload>(job: JobDefinition<Payload>): JobDefinition<Payload>;
export function defineJob(
  nameOrJob: QueueName | JobDefinition,
  handler?: JobHandler<unknown>,
): JobDefinition {
  if (typeof nameOrJob !== 'string') return nameOrJob;
  return { name: nameOrJob, ...queues[nameOrJob], ...handler } as JobDefinition;
}

/**
 * Queues earlier versions ran and this one does not, deleted with their jobs. `reconcile-payment` (one job per
 * payment) became `reconcile-payments`; a payment whose job is deleted with it is found by reconcile-stale.
 */
const RETIRED_QUEUES = ['reconcile-payment'];

/**
 * Creates every queue Tally uses, or brings an existing one's retry and expiry options up to date (its
 * policy and maximum retry delay are fixed at creation), and deletes retired ones; safe to repeat, so each
 * process does it at start.
 */
export async function createQueues(boss: Boss, jobs: readonly JobDefinition[]): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  for (const name of RETIRED_QUEUES) if (existing.has(name)) await boss.deleteQueue(name);
  for (const job of jobs) {
    if (!existing.has(job.name)) {
      await boss.createQueue(job.name, job.queue);
    } else if (job.queue) {
      const { policy: _policy, retryDelayMax: _max, ...options } = job.queue;
      await boss.updateQueue(job.name, options);
    }
  }
}
