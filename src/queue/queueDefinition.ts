import type { Queue } from 'pg-boss';
import type { z } from 'zod';
import type { Config } from '../config.ts';

// How a queue is declared: its payload, its pg-boss options and its schedule, and the option sets the
// queues share (src/queue/queues.ts lists every queue).

/** A config field holding a cron expression (UTC, or BUSINESS_TIME_ZONE for a queue of `businessTime`). */
type ScheduleSetting = Extract<keyof Config, `SCHEDULE_${string}`>;

type PayloadSchema = z.ZodType<Record<string, unknown>>;

/** The payload the clock and POST /api/jobs/:name send when given none. */
export type EmptyPayload = Record<string, never>;

/**
 * One pg-boss queue. Senders and the handler in `jobs/<name>.ts` both parse payloads with its schema.
 * Only a queue whose payload may be empty can be scheduled.
 */
export type QueueDefinition<Schema extends PayloadSchema = PayloadSchema> = {
  payloadSchema: Schema;
  /** pg-boss queue options: retries, back-off, expiry, policy. */
  queue: Omit<Queue, 'name'>;
} & (EmptyPayload extends z.input<Schema>
  ? {
      /** Startable with an empty payload: by POST /api/jobs/:name, and by the clock if it has a cron setting. */
      scheduled?: boolean;
      cronSetting?: ScheduleSetting;
      /** A fixed schedule (UTC), for a job people need not tune. */
      cron?: string;
      /** The schedule runs in BUSINESS_TIME_ZONE: a job about business days (reports, periods). */
      businessTime?: boolean;
    }
  : { scheduled?: false; cronSetting?: never; cron?: never; businessTime?: never });

// Infers the schema, so a scheduled queue must take an empty payload; the definition is returned as it is.
export function defineQueue<Schema extends PayloadSchema>(
  definition: QueueDefinition<Schema>,
): QueueDefinition<Schema> {
  return definition;
}

/**
 * How long a running job may go without its worker's heartbeat (pg-boss sends one every half of this while
 * the handler runs) before it is failed into its retry: a job of a worker that died is retried within this,
 * plus a supervise pass (10 s, src/queue/boss.ts), plus the queue's first retry delay: under a minute on
 * every queue (docs/reliability.md). `expireInSeconds` separately bounds a handler that is alive but stuck.
 */
export const HEARTBEAT_SECONDS = 20;

// A long scheduled job (a sync, a sweep, a report, a purge): 3 retries from 15 s with back-off, and a stuck
// live handler failed after `expireInSeconds`.
export const longJob = (expireInSeconds: number) => ({
  retryLimit: 3,
  retryDelay: 15,
  retryBackoff: true,
  heartbeatSeconds: HEARTBEAT_SECONDS,
  expireInSeconds,
});

// A reconciliation a projection batch enqueues: 5 quick retries from 5 s with back-off up to 10 minutes.
export const reconciliationJob = (expireInSeconds: number) => ({
  retryLimit: 5,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 600,
  heartbeatSeconds: HEARTBEAT_SECONDS,
  expireInSeconds,
});
