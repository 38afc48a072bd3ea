import { z } from 'zod';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';

/**
 * A standard fee configuration as the provider's API returns it (seed: "Standard fee configuration"),
 * parsed into Tally's `FeeConfiguration`: the only place the wire shape is converted.
 */
export const providerFeeConfigurationSchema = z
  .looseObject({
    id: z.string().min(1),
    account_id: z.string().min(1),
    platform_account_id: z.string().nullish(),
    fee_type: z.string().min(1),
    variable_rate: z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]),
    transaction_fee_cents: z.number().int().nonnegative().default(0),
    transaction_fee_currency: z.string().nullish(),
    fee_cap_cents: z.number().int().nonnegative().nullish(),
    effective_start: z.iso.datetime({ offset: true }),
    effective_end: z.iso.datetime({ offset: true }).nullish(),
  })
  .transform(
    (item): FeeConfiguration => ({
      id: item.id,
      accountId: item.account_id,
      platformAccountId: item.platform_account_id ?? null,
      feeType: item.fee_type,
      // String(n) is the shortest decimal that round-trips: the rate as the provider wrote it.
      variableRate: String(item.variable_rate),
      transactionFeeCents: item.transaction_fee_cents,
      transactionFeeCurrency: item.transaction_fee_currency ?? null,
      feeCapCents: item.fee_cap_cents ?? null,
      effectiveStart: new Date(item.effective_start),
      effectiveEnd: item.effective_end ? new Date(item.effective_end) : null,
    }),
  );
