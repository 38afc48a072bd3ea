/** A fee configuration's pricing, as the provider publishes it. `variableRate` is a percentage. */
export type Pricing = {
  variableRate: string | number;
  transactionFeeCents: number;
  feeCapCents: number | null;
};

/** A decimal percentage as an exact fraction: "2.75" → 275 / 100. Refuses anything but plain decimals. */
export function parseRate(rate: string | number): { numerator: bigint; scale: bigint } {
  // String(n) gives the shortest decimal that round-trips, i.e. the number as the provider wrote it.
  const text = typeof rate === 'number' ? String(rate) : rate.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`variable_rate ${JSON.stringify(rate)} is not a non-negative decimal`);
  const decimals = match[2] ?? '';
  return { numerator: BigInt(`${match[1]}${decimals}`), scale: 10n ** BigInt(decimals.length) };
}

/**
 * The seed's fee calculation, in exact integer arithmetic: amount × rate/100 + flat, capped, then
 * rounded half-up to the cent. 2.75 % of 1,234 ¢ is 33.935 ¢, which is 34 ¢.
 */
export function calculateFee(amountCents: number, pricing: Pricing): number {
  const { numerator, scale } = parseRate(pricing.variableRate);
  const denominator = 100n * scale;
  // The fee as a fraction over `denominator`.
  let fee = BigInt(amountCents) * numerator + BigInt(pricing.transactionFeeCents) * denominator;
  if (pricing.feeCapCents !== null) {
    const cap = BigInt(pricing.feeCapCents) * denominator;
    if (fee > cap) fee = cap;
  }
  return Number((2n * fee + denominator) / (2n * denominator));
}
