import { z } from 'zod';
import { FALLBACK_REASONS } from '../../db/readPool.ts';
import { count, named, timestamp } from './registry.ts';
import { subscriptionStatusSchema } from './subscriptionSchemas.ts';

export const errorSchema = named(
  'Error',
  'Every refusal and failure: a stable `code` to branch on, a `message` for a person. Never echoes input.',
  z.strictObject({ error: z.strictObject({ code: z.string(), message: z.string() }) }),
);

export const pageInfoSchema = named(
  'PageInfo',
  "The provider's cursor pagination: pass `end_cursor` as `after_cursor` for the next (older) page, `start_cursor` as `before_cursor` for the previous one.",
  z.strictObject({
    has_previous: z.boolean(),
    has_next: z.boolean(),
    start_cursor: z.string().nullable(),
    end_cursor: z.string().nullable(),
  }),
);

/** The envelope of one object: `{id, type, data, page_info: null}`. */
export function single(id: string, type: string, data: z.ZodType, description: string) {
  return named(
    id,
    description,
    z.strictObject({ id: z.string().nullable(), type: z.literal(type), data, page_info: z.null() }),
  );
}

/** The envelope of a page: `{id: null, type: "array", data: [...], page_info}`. */
export function page(id: string, item: z.ZodType, description: string) {
  return named(
    id,
    description,
    z.strictObject({
      id: z.null(),
      type: z.literal('array'),
      data: z.array(item),
      page_info: pageInfoSchema,
    }),
  );
}

export const webhookAckSchema = named(
  'WebhookAck',
  'The delivery is stored (or was already): the provider may stop retrying. `event_id` is null for a delivery without one (kept, quarantined).',
  z.strictObject({ received: z.literal(true), event_id: z.string().nullable(), duplicate: z.boolean() }),
);

export const jobStartedSchema = named(
  'JobStarted',
  'The job is queued; `id` is its pg-boss job id (null when an identical job is already queued).',
  z.strictObject({ id: z.string().nullable(), name: z.string(), payload: z.record(z.string(), z.unknown()) }),
);

export const statusSchema = named(
  'Status',
  'Backlogs and the last runs of the scheduled work; every count is a number of rows or jobs.',
  z.strictObject({
    unprocessed_events: count(),
    queued_jobs: count(),
    quarantined_events: count(),
    failed_events: count(),
    conflicting_events: count(),
    last_fee_sync_at: timestamp().nullable(),
    unverified_fee_payments: count(),
    overridden_fees: count(),
    unknown_values: z.unknown(),
    last_sweep_at: timestamp().nullable(),
    missed_events_open: count(),
    oldest_kept_body_at: timestamp().nullable(),
    purged_bodies: count(),
    unreconciled_payments: count(),
    oldest_unreconciled_s: z.number().nonnegative().nullable(),
    last_payout_sync_at: timestamp().nullable(),
    payments_awaiting_payout: count(),
    payouts_unmatched_in_bank: count(),
    provider_ledger_failures: z.array(
      z.strictObject({
        account_id: z.string(),
        failed_at: timestamp(),
        error: z.string(),
        listed_at: timestamp().nullable(),
      }),
    ),
    read_replica: z
      .strictObject({
        reads_from: z.enum(['replica', 'primary']),
        lag_s: z.number().nonnegative().nullable(),
        checked_at: timestamp().nullable(),
        fallback_reason: z.enum(FALLBACK_REASONS).nullable(),
      })
      .nullable(),
    failed_jobs: z.record(z.string(), count()),
    subscriptions: z.array(subscriptionStatusSchema),
  }),
);

export * from './changeSchemas.ts';
export * from './periodSchemas.ts';
export { components, documentedAs } from './registry.ts';
export * from './reportAndStatementSchemas.ts';
export * from './resources.ts';
