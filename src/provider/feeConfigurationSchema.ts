import { z } from 'zod';

/** A standard fee configuration as the provider's API returns it (seed: "Standard fee configuration"). */
export const providerFeeConfigurationSchema = z.looseObject({
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
});

export type ProviderFeeConfiguration = z.infer<typeof providerFeeConfigurationSchema>;
