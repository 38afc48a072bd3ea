/**
 * A standard fee configuration version (`sfc_`): the one shape sync, history checks, reconciliation and
 * reports share. Read straight from `fee_configurations`, or converted once from the provider's wire
 * shape at the edge (src/provider/feeConfigurationSchema.ts).
 */
export type FeeConfiguration = {
  id: string;
  accountId: string;
  platformAccountId: string | null;
  feeType: string;
  /** A percentage exactly as published ("2.75"): a string, so it never passes through a float. */
  variableRate: string;
  transactionFeeCents: number;
  transactionFeeCurrency: string | null;
  feeCapCents: number | null;
  /** The window is start-inclusive, end-exclusive; no end means open-ended. */
  effectiveStart: Date;
  effectiveEnd: Date | null;
};
