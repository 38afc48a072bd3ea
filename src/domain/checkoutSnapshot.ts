import { z } from 'zod';
import { cents, timestamp } from './fields.ts';

// The seed does not show checkout event payloads beyond these fields; the rest is kept as received.
export const checkoutSchema = z.looseObject({
  id: z.string().startsWith('cho_'),
  account_id: z.string().nullish(),
  amount: cents.nullish(),
  description: z.string().nullish(),
  payment_amount: cents.nullish(),
  status: z.string().nullish(),
  payment: z
    .looseObject({ fees: z.array(z.looseObject({ type: z.string(), amount: cents })).nullish() })
    .nullish(),
  payment_id: z.string().nullish(),
  successful_payment_id: z.string().nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

/** A completion event may carry a completion object that names its checkout instead of the checkout. */
export const checkoutCompletionSchema = z.looseObject({
  checkout_id: z.string().startsWith('cho_'),
  payment_id: z.string().nullish(),
  status: z.string().nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

const STATUS_BY_EVENT: Record<string, string> = {
  'checkout.created': 'created',
  'checkout.completion.processing': 'processing',
  'checkout.completion.failed': 'completion_failed',
  'checkout.completion.succeeded': 'completed',
  'checkout.completed': 'completed',
};

const RANK: Record<string, number> = { created: 0, processing: 1, completion_failed: 1, completed: 2 };

/** The checkout status an event implies; completion outranks creation whatever order they arrive in. */
export function checkoutStatus(
  eventName: string,
  stated: string | null | undefined,
): { status: string; rank: number } {
  const status = STATUS_BY_EVENT[eventName] ?? stated ?? 'created';
  return { status, rank: RANK[status] ?? 0 };
}
