import { z } from 'zod';
import { ATTEMPT_OUTCOMES } from '../../subscriptions/attemptQueries.ts';
import { count, named, timestamp } from './registry.ts';

const subscriptionFields = {
  id: z.string(),
  url: z.string(),
  types: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  state: z.enum(['active', 'failing', 'disabled']),
  disabled_reason: z.enum(['manual', 'failing']).nullable(),
  disabled_at: timestamp().nullable(),
  failing_since: timestamp().nullable(),
  last_delivered_at: timestamp().nullable(),
  previous_secret_until: timestamp().nullable(),
  lag_seconds: z.number().nonnegative(),
  pending: count(),
  failed: count(),
  attempts: z.partialRecord(z.enum(ATTEMPT_OUTCOMES), count()),
  created_at: timestamp(),
  updated_at: timestamp(),
};

export const subscriptionSchema = named(
  'Subscription',
  'A URL that receives every change of its types, signed. `state`: `active`, `failing` (every attempt since `failing_since` failed) or `disabled`. `lag_seconds`: age of its oldest change not yet delivered (0: none waits). `pending` changes wait to be sent, `failed` ones were given up on after 3 days (a replay sends them again). Never the secret.',
  z.strictObject(subscriptionFields),
);

export const attemptSchema = named(
  'SubscriptionAttempt',
  'One POST of a change: `outcome` `delivered` is a 2xx within 10 s; `status_code` is null when no answer came.',
  z.strictObject({
    change_id: z.string(),
    attempted_at: timestamp(),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    status_code: z.int().nullable(),
    duration_ms: count(),
    error: z.string().nullable(),
  }),
);

export const subscriptionDetailSchema = named(
  'SubscriptionDetail',
  'A subscription with its last 100 attempts (newest first) and the changes it gave up on (oldest first, up to 100).',
  z.strictObject({
    ...subscriptionFields,
    recent_attempts: z.array(attemptSchema),
    failed_changes: z.array(
      z.strictObject({
        change_id: z.string(),
        object: z.string(),
        object_id: z.string(),
        attempts: count(),
        first_attempt_at: timestamp().nullable(),
      }),
    ),
  }),
);

export const subscriptionWithSecretSchema = named(
  'SubscriptionWithSecret',
  'A subscription and its signing secret (`whsec_` and 32 random bytes in base64), shown only in this answer.',
  z.strictObject({ ...subscriptionFields, secret: z.string() }),
);

export const replayedSchema = named(
  'SubscriptionReplay',
  'How many changes the replay queued again (those still waiting keep their place and are not counted).',
  z.strictObject({ subscription_id: z.string(), queued: count() }),
);

export const subscriptionListSchema = named(
  'SubscriptionList',
  'Every subscription, oldest first (one page: `page_info` has no cursors).',
  z.strictObject({
    id: z.null(),
    type: z.literal('array'),
    data: z.array(subscriptionSchema),
    page_info: z.strictObject({
      has_previous: z.literal(false),
      has_next: z.literal(false),
      start_cursor: z.null(),
      end_cursor: z.null(),
    }),
  }),
);

export const subscriptionStatusSchema = named(
  'SubscriptionStatus',
  "A subscription's forwarding at a glance: `lag_seconds` is the age of its oldest change not yet delivered (0: none waits; it grows while disabled), `attempts` counts every attempt by outcome.",
  z.strictObject({
    id: z.string(),
    enabled: z.boolean(),
    lag_seconds: z.number().nonnegative(),
    pending: count(),
    failed: count(),
    attempts: z.partialRecord(z.enum(ATTEMPT_OUTCOMES), count()),
  }),
);
