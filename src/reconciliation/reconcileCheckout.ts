import type { FindingDraft } from '../findings/findings.ts';

export type CheckoutFees = { id: string; fees: { type: string; amount: number }[] };
export type ExplicitFee = { type: string; amount: number; sourceConfigurationId: string | null };

/**
 * Fees set on a checkout (`payment.fees`) must reach its payment as explicit fees (no source
 * configuration) of the same type and amount; any difference is one `checkout_fee_mismatch` listing,
 * per fee type, what was expected and what the payment carries.
 */
export function reconcileCheckoutFees(
  checkout: CheckoutFees,
  paymentId: string,
  paymentFees: ExplicitFee[],
): FindingDraft | null {
  const differences: { type: string; expected: number; actual: number | null }[] = [];
  for (const wanted of checkout.fees) {
    const explicit = paymentFees.filter(
      (fee) => fee.type === wanted.type && fee.sourceConfigurationId === null,
    );
    const actual = explicit.length === 0 ? null : explicit.reduce((sum, fee) => sum + fee.amount, 0);
    if (actual !== wanted.amount) differences.push({ type: wanted.type, expected: wanted.amount, actual });
  }
  if (differences.length === 0) return null;
  return {
    code: 'checkout_fee_mismatch',
    severity: 'error',
    subjectType: 'checkout',
    subjectId: checkout.id,
    expected: Object.fromEntries(differences.map((d) => [d.type, d.expected])),
    actual: Object.fromEntries(differences.map((d) => [d.type, d.actual])),
    details: { payment_id: paymentId, differences },
  };
}
