import { z } from 'zod';
import { cents, timestamp } from '../fields.ts';

export const returnedFeeSchema = z.looseObject({
  id: z.string().min(1),
  payment_fee_id: z.string().nullish(),
  type: z.string().nullish(),
  returned_amount: cents.nullish(),
  original_amount: cents.nullish(),
  remaining_amount: cents.nullish(),
  currency: z.string().nullish(),
});

export const refundSchema = z.looseObject({
  id: z.string().min(1),
  payment_id: z.string().min(1),
  amount: cents,
  reason: z.string().nullish(),
  status: z.string().nullish(),
  returned_fees: z.array(returnedFeeSchema).nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

/** Refunds are also seen as `success`, the provider's older word for `succeeded`: stored as `succeeded`. */
export function refundStatusOf(status: string | null | undefined): string | null {
  if (status === undefined || status === null) return null;
  return status === 'success' ? 'succeeded' : status;
}
