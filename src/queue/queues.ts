import { z } from 'zod';
import {
  defineQueue,
  type EmptyPayload,
  HEARTBEAT_SECONDS,
  longJob,
  reconciliationJob,
} from './queueDefinition.ts';

/**
 * Payments per `reconcile-payments` job: as many as a projection batch can change, so each batch enqueues one
 * job, whose payments are reconciled in a handful of statements.
 */
export const PAYMENTS_PER_RECONCILIATION = 100;

/** Payouts per `reconcile-payouts` job, judged together in a handful of statements. */
export const PAYOUTS_PER_RECONCILIATION = 100;

/**
 * Every queue Tally runs, upstream first. The clock lists its schedules in this order. `jobs/index.ts`
 * must wire a handler to each (a missing one is a type error there).
 */
export const queues = {
  /**
   * Payments to reconcile together: those one projection batch changed, or an account's after a fee sync, or
   * those found stale. Several jobs may name one payment, even at once: each run records only if it read a
   * state no older than the last one recorded (payment_reconciliation_states), so none undoes a newer one.
   */
  'reconcile-payments': defineQueue({
    payloadSchema: z.object({
      payment_ids: z.array(z.string().min(1)).min(1).max(PAYMENTS_PER_RECONCILIATION),
    }),
    // A job of 100 payments takes a fraction of a second (npm run bench:worker).
    queue: reconciliationJob(120),
  }),
  /**
   * Payments whose newest projection state no reconciliation has seen (a job lost with a crashed worker, or
   * failed for good), re-enqueued on `reconcile-payments`. From the clock every 2 minutes and at worker start.
   */
  'reconcile-stale': defineQueue({
    payloadSchema: z.object({}),
    // One indexed read and one insert per 1,000 payments: seconds.
    queue: { retryLimit: 2, retryDelay: 15, heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: 300 },
    scheduled: true,
    cron: '*/2 * * * *',
  }),
  /** Uncaptured manual authorizations near or past their expiry. */
  'capture-expiry-scan': defineQueue({
    payloadSchema: z.object({}),
    // One pass over the uncaptured authorizations: seconds.
    queue: { retryLimit: 2, retryDelay: 15, heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: 600 },
    scheduled: true,
    cronSetting: 'SCHEDULE_CAPTURE_EXPIRY_SCAN',
  }),
  /** An alert to deliver; a failing endpoint is retried on this queue only, so it holds up no other work. */
  'send-alert': defineQueue({
    payloadSchema: z.object({ alert_id: z.number().int().positive() }),
    // One POST with a 10 s timeout.
    queue: {
      retryLimit: 8,
      retryDelay: 10,
      retryBackoff: true,
      retryDelayMax: 1800,
      heartbeatSeconds: HEARTBEAT_SECONDS,
      expireInSeconds: 60,
    },
  }),
  /** Every account seen in events, or the one named. */
  'fee-configuration-sync': defineQueue({
    payloadSchema: z.object({ account_id: z.string().min(1).optional() }),
    // Pages the provider per account and fee type, with retries: minutes for many accounts.
    queue: longJob(3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_FEE_CONFIGURATION_SYNC',
  }),
  /** Sent at the end of each full fee sync, so it has no schedule of its own. */
  'fee-configuration-report': defineQueue({
    payloadSchema: z.object({}),
    // One snapshot of the stored history: seconds.
    queue: longJob(900),
    scheduled: true,
  }),
  /** Every sub account (configured and seen in events), or the one named, compared with the provider's API. */
  'missed-event-sweep': defineQueue({
    payloadSchema: z.object({ account_id: z.string().min(1).max(255).optional() }),
    // A sweep pages the provider for minutes at most; one running an hour is stuck.
    queue: longJob(3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_MISSED_EVENT_SWEEP',
  }),
  /**
   * Payouts (and every line of each) of every sub account, or of the one named, or the one payout named:
   * new or changed ones stored as `api` snapshots for the worker to project.
   */
  'payout-sync': defineQueue({
    payloadSchema: z
      .object({
        account_id: z.string().min(1).max(255).optional(),
        payout_id: z.string().min(1).max(255).optional(),
      })
      .refine((payload) => payload.payout_id === undefined || payload.account_id !== undefined, {
        message: 'account_id: required with payout_id',
        path: ['account_id'],
      }),
    // Pages the provider per account and payout, with retries; a run resumes where a failed one stopped.
    queue: longJob(3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_PAYOUT_SYNC',
  }),
  /** The business day to report: the day before, unless one is named. */
  'daily-report': defineQueue({
    payloadSchema: z.object({ date: z.iso.date().optional() }),
    // A day of a million payments renders in seconds (npm run bench:report).
    queue: longJob(3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_DAILY_REPORT',
    businessTime: true,
  }),
  /** The close report of a business month: the previous one, unless one is named. */
  'period-report': defineQueue({
    payloadSchema: z.object({
      period: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM')
        .optional(),
    }),
    // A month of a million payments: a few grouped scans (npm run bench:close).
    queue: longJob(3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_PERIOD_REPORT',
    businessTime: true,
  }),
  /**
   * Every closed period's numbers recomputed against its stored version (`closed_period_changed`): hourly, so a
   * late delivery or payout line that moves a closed month is flagged within the hour.
   */
  'closed-period-check': defineQueue({
    payloadSchema: z.object({}),
    // One grouped scan of the closed months' movements: the period report's cost per closed month.
    queue: longJob(3600),
    scheduled: true,
    cron: '40 * * * *',
  }),
  /** Raw bodies of finished deliveries older than RAW_BODY_RETENTION_DAYS, purged in small batches. */
  'retention-purge': defineQueue({
    payloadSchema: z.object({}),
    // A purge of millions of bodies takes minutes (it resumes where it stopped); one running four hours is stuck.
    queue: longJob(4 * 3600),
    scheduled: true,
    cronSetting: 'SCHEDULE_RETENTION_PURGE',
  }),
  /** Payouts to judge (rules 1–4): those whose snapshot or lines the projection changed. */
  'reconcile-payouts': defineQueue({
    payloadSchema: z.object({
      payout_ids: z.array(z.string().min(1).max(255)).min(1).max(PAYOUTS_PER_RECONCILIATION),
    }),
    // A handful of statements for all the payouts' lines: seconds for 100 payouts of 5,000 lines.
    queue: reconciliationJob(300),
  }),
  /** Payments awaiting payout past PAYOUT_EXPECTED_DAYS and payouts overdue: time-based, so on a schedule. */
  'payout-scan': defineQueue({
    payloadSchema: z.object({}),
    // Indexed reads of the synced accounts' unpaid payments and the unsettled payouts: seconds.
    queue: { retryLimit: 2, retryDelay: 15, heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: 600 },
    scheduled: true,
    cron: '*/15 * * * *',
  }),
  /** Alerts for opened findings of ALERT_FINDING_CODES, dispute deadlines, and the digests that are due. */
  'alert-scan': defineQueue({
    payloadSchema: z.object({}),
    // One pass over opened findings, dispute deadlines and due digests: seconds.
    queue: { retryLimit: 2, retryDelay: 15, heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: 600 },
    scheduled: true,
    cronSetting: 'SCHEDULE_ALERT_SCAN',
  }),
  /** Changes older than CHANGE_RETENTION_DAYS, removed in small batches. */
  'change-purge': defineQueue({
    payloadSchema: z.object({}),
    // Small batches of a day's changes: minutes at most; one running an hour is stuck.
    queue: longJob(3600),
    scheduled: true,
    cron: '17 * * * *',
  }),
};

export type QueueName = keyof typeof queues;

export const queueNames = Object.keys(queues) as QueueName[];

/** What a sender passes, per queue (graphile-worker types its tasks' payloads in one such map). */
export type SentPayloads = { [Name in QueueName]: z.input<(typeof queues)[Name]['payloadSchema']> };

/** What a handler receives, per queue: the payload as its schema parsed it. */
export type Payloads = { [Name in QueueName]: z.output<(typeof queues)[Name]['payloadSchema']> };

/** The queues an empty payload can start: the clock's and POST /api/jobs/:name's. */
export type StartableQueueName = {
  [Name in QueueName]: EmptyPayload extends SentPayloads[Name] ? Name : never;
}[QueueName];
