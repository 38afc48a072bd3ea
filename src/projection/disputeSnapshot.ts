import { z } from 'zod';
import type { FindingDraft } from '../findings/findings.ts';
import { cents, timestamp } from './fields.ts';

/** A dispute (`dp_`), the `data` of `payment.dispute.*`. It needs its id and the payment it disputes. */
export const disputeSchema = z.looseObject({
  id: z.string().min(1),
  payment_id: z.string().min(1),
  account_id: z.string().nullish(),
  amount: cents.nullish(),
  currency: z.string().nullish(),
  reason: z.string().nullish(),
  // A bare date (`2026-02-23`); a timestamp is cut to its UTC day.
  due_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}/, 'not a date')
    .refine((value) => !Number.isNaN(Date.parse(value.slice(0, 10))), 'not a date')
    .transform((value) => value.slice(0, 10))
    .nullish(),
  status: z.string().nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type Dispute = z.infer<typeof disputeSchema>;

// When `data` has no status, the event name says what happened.
const STATUS_BY_EVENT = new Map([
  ['payment.dispute.created', 'needs_response'],
  ['payment.dispute.submitted', 'under_review'],
  ['payment.dispute.forfeited', 'forfeited'],
]);

const RANK = new Map([
  ['needs_response', 0],
  ['under_review', 1],
  ['won', 2],
  ['lost', 2],
  ['forfeited', 2],
]);

const OPEN = new Set(['needs_response', 'under_review']);
const LOST = new Set(['lost', 'forfeited']);

/** The dispute's status (verbatim, or implied by the event name) and its rank: a closed dispute never reopens. */
export function disputeStatus(eventName: string, stated: string | null | undefined) {
  // A forfeit is a loss the merchant chose; the name says so even when `status` reads `lost`.
  const status =
    eventName === 'payment.dispute.forfeited'
      ? 'forfeited'
      : (stated ?? STATUS_BY_EVENT.get(eventName) ?? null);
  return { status, rank: status === null ? -1 : (RANK.get(status) ?? 0) };
}

export type DisputeToReconcile = {
  id: string;
  paymentId: string;
  accountId: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  dueDate: string | null;
  status: string | null;
};

/** `dispute_open` while the merchant must act or the network decides; `dispute_lost` once the money is gone. */
export function disputeFindings(dispute: DisputeToReconcile): FindingDraft[] {
  const base = {
    subjectType: 'dispute',
    subjectId: dispute.id,
    accountId: dispute.accountId,
    ...(dispute.currency ? { currency: dispute.currency } : {}),
    expected: null,
    actual: dispute.amount,
  };
  const details = {
    payment_id: dispute.paymentId,
    amount: dispute.amount,
    reason: dispute.reason,
    due_date: dispute.dueDate,
    status: dispute.status,
  };
  if (dispute.status !== null && OPEN.has(dispute.status))
    return [{ code: 'dispute_open', severity: 'warning', ...base, details }];
  if (dispute.status !== null && LOST.has(dispute.status))
    return [{ code: 'dispute_lost', severity: 'error', ...base, details }];
  return [];
}
