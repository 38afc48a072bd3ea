import { z } from 'zod';
import { FINDING_STATUSES } from '../routes/findings.ts';

/**
 * What the API answers, as zod schemas turned into the OpenAPI document's components (`z.toJSONSchema`).
 * Nothing parses responses with them: they describe, and the test suite checks every response against them.
 * Objects whose every field is listed are strict (a new field fails the suite until it is described);
 * objects read from stored provider data are open, with the fields a client relies on required.
 */
export const components = z.registry<{ id: string; description?: string }>();

const named = <Schema extends z.ZodType>(id: string, description: string, schema: Schema): Schema => {
  components.add(schema, { id, description });
  return schema;
};

const timestamp = () => z.iso.datetime({ offset: true });
/** Integer cents; null when not measured. */
const cents = () => z.int();

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

export const findingSchema = named(
  'Finding',
  'A discrepancy Tally found. `at_stake` is integer cents in `currency`, null when no money is measured.',
  z.strictObject({
    id: z.string().regex(/^fnd_\d+$/),
    code: z.string(),
    severity: z.enum(['info', 'warning', 'error']),
    status: z.enum(FINDING_STATUSES),
    subject_type: z.string(),
    subject_id: z.string(),
    account_id: z.string().nullable(),
    currency: z.string().nullable(),
    expected: z.unknown(),
    actual: z.unknown(),
    at_stake: cents().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
    first_seen_at: timestamp(),
    last_seen_at: timestamp(),
    resolved_at: timestamp().nullable(),
  }),
);

export const findingHistorySchema = named(
  'FindingHistoryEntry',
  'One change a person or Tally made to a finding, oldest first.',
  z.strictObject({
    actor: z.string(),
    action: z.string(),
    old_status: z.enum(FINDING_STATUSES).nullable(),
    new_status: z.enum(FINDING_STATUSES).nullable(),
    note: z.string().nullable(),
    created_at: timestamp(),
  }),
);

export const findingWithHistorySchema = named(
  'FindingWithHistory',
  'A finding and every status change and note on it.',
  z.strictObject({ ...findingSchema.shape, history: z.array(findingHistorySchema) }),
);

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

const count = () => z.int().nonnegative();

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
    failed_jobs: z.record(z.string(), count()),
  }),
);

/** An object read from stored data: these fields at least, with more as the provider sends them. */
const stored = (id: string, description: string, shape: z.ZodRawShape) =>
  named(id, description, z.looseObject(shape));

export const eventSchema = stored(
  'Event',
  'A stored delivery, card numbers reduced to their last four digits.',
  {
    id: z.string(),
  },
);
export const paymentSchema = stored(
  'PaymentDetail',
  'A payment with its fees, refunds, returned fees and findings.',
  {
    id: z.string(),
    findings: z.array(findingSchema),
  },
);
export const payoutSchema = stored(
  'Payout',
  'A payout as listed: its totals, lines loaded, bank match, open findings.',
  {
    id: z.string(),
  },
);
export const payoutDetailSchema = stored(
  'PayoutDetail',
  'A payout with every line, its check, the bank line and findings.',
  {
    id: z.string(),
  },
);
export const declineSchema = stored(
  'Decline',
  'A declined payment and the retry advice its decline code carries.',
  {
    id: z.string(),
  },
);
export const disputeSchema = stored('Dispute', 'A dispute as the provider last described it.', {
  id: z.string(),
});
export const alertSchema = stored('Alert', 'An ops alert and how it was delivered.', {
  id: z.string().regex(/^alt_\d+$/),
});
export const achReturnSchema = stored('AchReturn', 'An ACH return: the `ach_return` finding of a payment.', {
  id: z.string().regex(/^fnd_\d+$/),
});
export const reportListItemSchema = stored('ReportSummary', 'A stored report and where to read it.', {
  id: z.string().regex(/^rpt_\d+$/),
  links: z.strictObject({ json: z.string(), csv: z.string(), html: z.string() }),
});
export const reportSchema = named(
  'Report',
  'A stored report: its kind, period and body (sections as the daily or fee-configuration report writes them).',
  z.strictObject({
    id: z.string().regex(/^rpt_\d+$/),
    kind: z.string(),
    period: z.string().nullable(),
    created_at: timestamp(),
    body: z.record(z.string(), z.unknown()),
  }),
);
export const reportBodySchema = named(
  'ReportBody',
  'A report body as stored, indented: the same JSON as `data.body` of the report.',
  z.record(z.string(), z.unknown()),
);
