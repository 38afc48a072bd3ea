import { z } from 'zod';
import { FINDING_ID } from '../../findings/findingId.ts';
import { FINDING_CODES, SEVERITIES } from '../../findings/findings.ts';
import { FINDING_STATUSES } from '../../findings/workflow.ts';
import { ALERT_STATUSES } from '../../ops/alertStatuses.ts';
import { cents, count, named, timestamp } from './registry.ts';

export const findingSchema = named(
  'Finding',
  'A discrepancy Tally found. `at_stake` is integer cents in `currency`, null when no money is measured.',
  z.strictObject({
    id: z.string().regex(FINDING_ID),
    code: z.enum(FINDING_CODES),
    severity: z.enum(SEVERITIES),
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

/** An object whose fields come from the provider's own data: these at least, with more as it sends them. */
const stored = (id: string, description: string, shape: z.ZodRawShape) =>
  named(id, description, z.looseObject(shape));

export const eventSchema = named(
  'Event',
  'A stored delivery: its processing status and the body as received, card numbers reduced to the last four digits (null once purged).',
  z.strictObject({
    id: z.string(),
    event_name: z.string(),
    account_id: z.string().nullable(),
    account_type: z.string().nullable(),
    status: z.string(),
    source: z.enum(['webhook', 'api']),
    quarantine_reason: z.string().nullable(),
    error: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    received_at: timestamp(),
    processed_at: timestamp().nullable(),
    body_purged_at: timestamp().nullable(),
    payment_id: z.string().nullable(),
    conflicts: z.array(z.record(z.string(), z.unknown())),
    body: z.unknown(),
  }),
);

export const paymentSchema = stored(
  'PaymentDetail',
  'A payment as last projected, with its fees, refunds, checkout, forwarding requests, disputes and findings.',
  {
    id: z.string(),
    account_id: z.string(),
    amount: cents(),
    currency: z.string(),
    status: z.string(),
    fee_amount: cents().nullable(),
    fees: z.array(z.record(z.string(), z.unknown())),
    refunds: z.array(z.record(z.string(), z.unknown())),
    checkout: z.record(z.string(), z.unknown()).nullable(),
    forwarding_requests: z.array(z.record(z.string(), z.unknown())),
    disputes: z.array(z.record(z.string(), z.unknown())),
    findings: z.array(findingSchema),
  },
);

const payoutFields = {
  id: z.string(),
  account_id: z.string(),
  amount: cents(),
  currency: z.string(),
  status: z.string(),
  payout_type: z.string().nullable(),
  delivery_method: z.string().nullable(),
  description: z.string().nullable(),
  deposits_at: timestamp().nullable(),
  payments_count: count().nullable(),
  payments_total: cents().nullable(),
  refunds_count: count().nullable(),
  refunds_total: cents().nullable(),
  fees_total: cents().nullable(),
  other_total: cents().nullable(),
  bank_account: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
  line_count: count().nullable(),
  lines_complete: z.boolean(),
  judged: z.boolean(),
  bank_line_id: z.int().nullable(),
  open_findings: count(),
};

export const payoutSchema = named(
  'Payout',
  'A payout: amounts in integer cents, whether all its lines are loaded and judged, its bank line, its open findings.',
  z.strictObject(payoutFields),
);

export const payoutDetailSchema = named(
  'PayoutDetail',
  'A payout with every line (what each matched and its check), the bank line it landed as, and its findings.',
  z.strictObject({
    ...payoutFields,
    reconciliation: z
      .strictObject({ judged_at: timestamp(), lines_checked: count(), lines_mismatched: count() })
      .nullable(),
    lines: z.array(
      z.looseObject({
        id: z.string(),
        txn_type: z.string(),
        kind: z.string(),
        amount: cents(),
        fee: cents(),
        net: cents(),
        currency: z.string(),
        check: z.record(z.string(), z.unknown()).nullable(),
        matched: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
    bank_line: z.record(z.string(), z.unknown()).nullable(),
    findings: z.array(findingSchema),
  }),
);

export const declineSchema = named(
  'Decline',
  'A declined card payment, what its codes mean, and the retry advice they carry.',
  z.strictObject({
    id: z.string(),
    payment_id: z.string(),
    account_id: z.string(),
    amount: cents(),
    currency: z.string(),
    card_brand: z.string().nullable(),
    card_last_four: z.string().nullable(),
    payment_method_id: z.string().nullable(),
    error_code: z.string().nullable(),
    decline_code: z.string().nullable(),
    decline_meaning: z.string().nullable(),
    network: z.string().nullable(),
    network_error_code: z.string().nullable(),
    network_error_meaning: z.string().nullable(),
    network_error_category: z.string().nullable(),
    network_error_category_meaning: z.string().nullable(),
    advice: z.string(),
    advice_in_words: z.string(),
    scope: z.string().nullable(),
    scope_in_words: z.string().nullable(),
    declined_at: timestamp(),
  }),
);

export const disputeSchema = named(
  'Dispute',
  'A dispute as the provider last described it.',
  z.strictObject({
    id: z.string(),
    payment_id: z.string().nullable(),
    account_id: z.string().nullable(),
    account_type: z.string().nullable(),
    amount: cents(),
    currency: z.string(),
    reason: z.string().nullable(),
    due_date: z.string().nullable(),
    status: z.string(),
    created_at: timestamp().nullable(),
    updated_at: timestamp().nullable(),
  }),
);

export const alertSchema = named(
  'Alert',
  'An ops alert and how its delivery went.',
  z.strictObject({
    id: z.string().regex(/^alt_\d+$/),
    kind: z.string(),
    subject_id: z.string().nullable(),
    account_id: z.string().nullable(),
    payload: z.unknown(),
    status: z.enum(ALERT_STATUSES),
    attempts: count(),
    last_error: z.string().nullable(),
    created_at: timestamp(),
    sent_at: timestamp().nullable(),
    deliveries: z.unknown(),
    finding_id: z.int().nullable(),
    digest_id: z.int().nullable(),
  }),
);

export const achReturnSchema = named(
  'AchReturn',
  'An ACH return (the `ach_return` finding of a payment): its code, what it means, and whether it came late.',
  z.strictObject({
    id: z.string().regex(FINDING_ID),
    payment_id: z.string(),
    account_id: z.string().nullable(),
    currency: z.string().nullable(),
    code: z.string().nullable(),
    category: z.string().nullable(),
    retryable: z.boolean().nullable(),
    known: z.boolean().nullable(),
    late: z.boolean().nullable(),
    amount: cents().nullable(),
    meaning: z.string().nullable(),
    error_code: z.string().nullable(),
    description: z.string().nullable(),
    succeeded_at: timestamp().nullable(),
    failed_at: timestamp().nullable(),
    status: z.enum(FINDING_STATUSES),
    first_seen_at: timestamp(),
  }),
);
