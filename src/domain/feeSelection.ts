import { brandKeyOf } from './feeTypes.ts';

export type EffectiveWindow = { feeType: string; effectiveStart: Date; effectiveEnd: Date | null };

/** Start-inclusive, end-exclusive. */
export function isEffectiveAt(configuration: EffectiveWindow, at: Date): boolean {
  const time = at.getTime();
  return (
    configuration.effectiveStart.getTime() <= time &&
    (configuration.effectiveEnd === null || time < configuration.effectiveEnd.getTime())
  );
}

export type PaymentKind = {
  /** `other`: a payment mode with no fee configuration type of its own (bnpl, …). */
  methodKind: 'card' | 'ach' | 'card_present' | 'other' | null;
  cardBrand: string | null;
  expedited: boolean;
};

/**
 * The configuration type the seed's selection rules pick for a payment's processing fee at `at`:
 * the brand type if one is effective for the card brand (it replaces the base), else the base type.
 * ACH has no brand pricing. Null when the payment method is unknown.
 */
export function expectedProcessingType(
  payment: PaymentKind,
  configurations: EffectiveWindow[],
  at: Date,
): string | null {
  if (payment.methodKind === 'ach') return payment.expedited ? 'processing_ach_expedited' : 'processing_ach';
  if (payment.methodKind === null || payment.methodKind === 'other') return null;
  const channel = payment.methodKind === 'card_present' ? 'card_present' : 'ecomm';
  const brand = brandKeyOf(payment.cardBrand);
  const brandType = brand ? `${brand}_brand_${channel}` : null;
  const brandEffective = configurations.some((c) => c.feeType === brandType && isEffectiveAt(c, at));
  return brandEffective && brandType ? brandType : `processing_${channel}`;
}

/** The `platform` configuration in effect at `at`, if any: its fee adds to every payment type. */
export function effectivePlatformConfiguration<T extends EffectiveWindow>(
  configurations: T[],
  at: Date,
): T | undefined {
  return configurations.find((c) => c.feeType === 'platform' && isEffectiveAt(c, at));
}
