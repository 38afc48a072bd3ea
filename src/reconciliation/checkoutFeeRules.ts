import type { FindingDraft } from '../findings/findings.ts';
import type { PaymentFacts } from './queries.ts';

/**
 * Fees set on a checkout (`payment.fees`) must reach its payment as explicit fees (no source
 * configuration) of the same type and amount; any difference is one `checkout_fee_mismatch` listing,
 * per fee type, what was expected and what the payment carries.
 */
export function checkCheckoutFees({ payment, fees, checkout }: PaymentFacts): FindingDraft[] {
  if (checkout === null) return [];
  const differences: { type: string; expected: number; actual: number | null }[] = [];
  for (const wanted of checkout.fees) {
    const explicit = fees.filter((fee) => fee.type === wanted.type && fee.sourceConfigurationId === null);
    const actual = explicit.length === 0 ? null : explicit.reduce((sum, fee) => sum + fee.amount, 0);
    if (actual !== wanted.amount) differences.push({ type: wanted.type, expected: wanted.amount, actual });
  }
  if (differences.length === 0) return [];
  return [
    {
      code: 'checkout_fee_mismatch',
      severity: 'error',
      subjectType: 'checkout',
      subjectId: checkout.id,
      expected: Object.fromEntries(differences.map((d) => [d.type, d.expected])),
      actual: Object.fromEntries(differences.map((d) => [d.type, d.actual])),
      // A fee the payment does not carry at all is missing whole.
      atStake: differences.reduce((sum, d) => sum + Math.abs(d.expected - (d.actual ?? 0)), 0),
      details: { payment_id: payment.id, differences },
    },
  ];
}
