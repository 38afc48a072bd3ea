import { z } from 'zod';
import { cents, timestamp } from '../fields.ts';

const optionalText = z.string().nullish();

/**
 * A payout (`po_…`) as the provider's API and its `payout.*` events carry it (docs/payouts-sync.md). Only what a payout cannot do without is required; every other field is kept as sent.
 */
export const payoutSchema = z.looseObject({
  id: z.string().min(1),
  account_id: z.string().min(1).nullish(),
  amount: cents,
  currency: z.string().min(1),
  status: z.string().min(1),
  payout_type: optionalText,
  delivery_method: optionalText,
  description: optionalText,
  deposits_at: timestamp.nullish(),
  payments_count: z.number().int().nullish(),
  payments_total: cents.nullish(),
  refunds_count: z.number().int().nullish(),
  refunds_total: cents.nullish(),
  fees_total: cents.nullish(),
  other_total: cents.nullish(),
  bank_account: z.unknown().optional(),
  metadata: z.unknown().optional(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type ProviderPayout = z.infer<typeof payoutSchema>;

/**
 * A balance transaction (`bt_…`): one line of a payout. The provider does not document its sign
 * convention or where fees go, so amounts are read as given here and normalized by the projection.
 */
export const balanceTransactionSchema = z.looseObject({
  id: z.string().min(1),
  account_id: z.string().min(1).nullish(),
  payout_id: z.string().min(1),
  amount: cents,
  fee: cents.nullish(),
  net: cents.nullish(),
  currency: z.string().min(1),
  txn_type: z.string().min(1),
  available_on: timestamp.nullish(),
  source_id: optionalText,
  source_type: optionalText,
  source_payment_id: optionalText,
  financial_transaction_id: optionalText,
  description: optionalText,
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type ProviderBalanceTransaction = z.infer<typeof balanceTransactionSchema>;
