import { z } from 'zod';
import { cents, timestamp } from '../fields.ts';
import { refundSchema } from '../refunds/refundSnapshot.ts';

export const paymentFeeSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  amount: cents,
  remaining_amount: cents.nullish(),
  currency: z.string().nullish(),
  source_configuration_id: z.string().nullish(),
  source_fee_type: z.string().nullish(),
});

const methodDetail = z.looseObject({
  id: z.string().nullish(),
  token: z.string().nullish(),
  brand: z.string().nullish(),
});

// Only id, amount and currency are required: a payment cannot be projected or reconciled without them.
// Enumerations (status, payment_mode, brand…) are kept verbatim, whatever the provider adds.
export const paymentSchema = z.looseObject({
  id: z.string().min(1),
  account_id: z.string().nullish(),
  amount: cents,
  currency: z.string().min(1),
  status: z.string().min(1).nullish(),
  capture_strategy: z.string().nullish(),
  captured: z.boolean().nullish(),
  payment_mode: z.string().nullish(),
  expedited: z.boolean().nullish(),
  // An ACH return or a void hands the fees back without a refund object.
  returned: z.boolean().nullish(),
  amount_returned: cents.nullish(),
  fee_amount: cents.nullish(),
  fees: z.array(paymentFeeSchema).nullish(),
  application_fee_amount: cents.nullish(),
  amount_refunded: cents.nullish(),
  refunds: z.array(refundSchema.partial({ payment_id: true })).nullish(),
  error_code: z.string().nullish(),
  error_description: z.string().nullish(),
  checkout_id: z.string().nullish(),
  payment_method: z
    .looseObject({
      id: z.string().nullish(),
      card: methodDetail.nullish(),
      bank_account: methodDetail.nullish(),
    })
    .nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type Payment = z.infer<typeof paymentSchema>;

const TERMINAL = new Set([
  'succeeded',
  'failed',
  'canceled',
  'partially_refunded',
  'fully_refunded',
  'refunded',
  'disputed',
]);

/** A terminal status outranks a non-terminal one whatever the timestamps: terminal states never regress. */
export function isTerminalStatus(status: string | null | undefined): boolean {
  return status !== null && status !== undefined && TERMINAL.has(status);
}

/** The mode as stated (verbatim), or inferred from the method when absent (a bank account is ACH, a card ecom). */
export function paymentModeOf(payment: Payment): string | null {
  if (payment.payment_mode) return payment.payment_mode;
  if (payment.payment_method?.bank_account) return 'ach';
  if (payment.payment_method?.card) return 'ecom';
  return null;
}

export type MethodKind = 'card' | 'ach' | 'card_present' | 'other';

/**
 * How the payment is priced. The method decides ACH (a bank account is ACH whatever the mode says); for
 * cards the mode decides in person vs online; a mode with no fee configuration type of its own (bnpl,
 * apple_pay, …) is `other`, whose fees are counted unverified.
 */
export function methodKindOf(payment: Payment): MethodKind | null {
  if (payment.payment_method?.bank_account) return 'ach';
  switch (paymentModeOf(payment)) {
    case null:
      return null;
    case 'ecom':
      return 'card';
    case 'card_present':
      return 'card_present';
    case 'ach':
      return 'ach';
    default:
      return 'other';
  }
}

export function paymentMethodIdOf(payment: Payment): string | null {
  const method = payment.payment_method;
  return method?.card?.id ?? method?.bank_account?.id ?? method?.id ?? method?.card?.token ?? null;
}

export type PaymentMilestones = {
  authorizedAt: Date | null;
  capturedAt: Date | null;
  succeededAt: Date | null;
  failedAt: Date | null;
  canceledAt: Date | null;
};

/** What this snapshot proves happened, and when; the projection keeps the earliest time of each fact. */
export function paymentFacts(payment: Payment, eventName: string, at: Date): PaymentMilestones {
  const when = (happened: boolean) => (happened ? at : null);
  return {
    authorizedAt: when(payment.status === 'authorized' || eventName === 'payment.authorized'),
    capturedAt: when(
      eventName === 'payment.captured' || (payment.captured === true && payment.status !== 'authorized'),
    ),
    succeededAt: when(payment.status === 'succeeded' || eventName === 'payment.succeeded'),
    failedAt: when(payment.status === 'failed' || eventName === 'payment.failed'),
    canceledAt: when(payment.status === 'canceled' || eventName === 'payment.canceled'),
  };
}
