import { z } from 'zod';
import { cents, timestamp } from '../fields.ts';

const checkoutFee = z.looseObject({ type: z.string(), amount: cents });
export type CheckoutFee = z.infer<typeof checkoutFee>;

// Only the id is required; everything else is kept as received in the snapshot.
export const checkoutSchema = z.looseObject({
  id: z.string().min(1),
  account_id: z.string().nullish(),
  amount: cents.nullish(),
  description: z.string().nullish(),
  payment_amount: cents.nullish(),
  payment_currency: z.string().nullish(),
  status: z.string().nullish(),
  payment: z.looseObject({ fees: z.array(checkoutFee).nullish() }).nullish(),
  payment_fees: z.array(checkoutFee).nullish(),
  // Legacy; its shape varied over time, so it is used only when it is a list of fees.
  application_fees: z.unknown().optional(),
  payment_id: z.string().nullish(),
  successful_payment_id: z.string().nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type Checkout = z.infer<typeof checkoutSchema>;

/** Fees set on a checkout: `payment.fees`, top-level `payment_fees`, or the legacy `application_fees`. */
export function checkoutFeesOf(checkout: Checkout): CheckoutFee[] | null {
  const legacy = z.array(checkoutFee).safeParse(checkout.application_fees);
  return checkout.payment?.fees ?? checkout.payment_fees ?? (legacy.success ? legacy.data : null);
}

/** A completion (`chc_`) names its checkout and the payment it made. */
export const checkoutCompletionSchema = z.looseObject({
  checkout_id: z.string().min(1),
  payment_id: z.string().nullish(),
  payment_mode: z.string().nullish(),
  status: z.string().nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

const STATUS_BY_EVENT = new Map([
  ['checkout.created', 'created'],
  ['checkout.completion.processing', 'processing'],
  // The provider calls a checkout whose completion failed `attempted`.
  ['checkout.completion.failed', 'attempted'],
  ['checkout.completion.succeeded', 'completed'],
  ['checkout.completed', 'completed'],
]);

const STATUS_BY_COMPLETION = new Map([
  ['succeeded', 'completed'],
  ['failed', 'attempted'],
  ['processing', 'processing'],
]);

const RANK = new Map([
  ['created', 0],
  ['processing', 1],
  ['attempted', 1],
  ['expired', 2],
  ['completed', 3],
]);

/**
 * The checkout status a snapshot shows: the higher-ranked of what `data` states and what the event name
 * implies, so a completion outranks creation whatever order they arrive in.
 */
export function checkoutStatus(
  eventName: string,
  stated: string | null | undefined,
  kind: 'checkout' | 'completion',
): { status: string; rank: number } {
  const fromData = kind === 'completion' && stated ? STATUS_BY_COMPLETION.get(stated) : stated;
  const candidates = [STATUS_BY_EVENT.get(eventName), fromData ?? undefined].filter(
    (status): status is string => status !== undefined,
  );
  const ranked = candidates.map((status) => ({ status, rank: RANK.get(status) ?? 0 }));
  return ranked.reduce(
    (best, next) => (next.rank > best.rank ? next : best),
    ranked[0] ?? { status: 'created', rank: 0 },
  );
}
