import { z } from 'zod';
import { cents, timestamp } from '../fields.ts';

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

/** The dispute's status (verbatim, or implied by the event name) and its rank: a closed dispute never reopens. */
export function disputeStatus(eventName: string, stated: string | null | undefined) {
  // A forfeit is a loss the merchant chose; the name says so even when `status` reads `lost`.
  const status =
    eventName === 'payment.dispute.forfeited'
      ? 'forfeited'
      : (stated ?? STATUS_BY_EVENT.get(eventName) ?? null);
  return { status, rank: status === null ? -1 : (RANK.get(status) ?? 0) };
}
