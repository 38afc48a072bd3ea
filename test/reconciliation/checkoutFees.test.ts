import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { checkCheckoutFees } from '../../src/reconciliation/checkoutFeeRules.ts';
import type { CheckoutFeeToReconcile, PaymentFeeToReconcile } from '../../src/reconciliation/queries.ts';
import { facts, fee, platform } from './fixtures.ts';

type Difference = { type: string; expected: number; actual: number | null };

function checkoutMismatch(differences: Difference[], atStake: number): FindingDraft {
  return {
    code: 'checkout_fee_mismatch',
    severity: 'error',
    subjectType: 'checkout',
    subjectId: 'cho_1',
    expected: Object.fromEntries(differences.map((d) => [d.type, d.expected])),
    actual: Object.fromEntries(differences.map((d) => [d.type, d.actual])),
    atStake,
    details: { payment_id: 'py_1', differences },
  };
}

const onCheckout = (fees: CheckoutFeeToReconcile[]) => ({ id: 'cho_1', fees });

describe('checkout_fee_mismatch: fees set on a checkout reach its payment as explicit fees', () => {
  it.each<{
    name: string;
    checkout: CheckoutFeeToReconcile[];
    fees: PaymentFeeToReconcile[];
    findings: FindingDraft[];
  }>([
    {
      name: 'an explicit fee of the same type and amount matches',
      checkout: [{ type: 'platform_fee', amount: 100 }],
      fees: [fee('pyfee_platform', 'platform_fee', 100, null)],
      findings: [],
    },
    {
      name: 'explicit fees of one type are added up',
      checkout: [{ type: 'platform_fee', amount: 100 }],
      fees: [fee('pyfee_a', 'platform_fee', 60, null), fee('pyfee_b', 'platform_fee', 40, null)],
      findings: [],
    },
    {
      name: 'a different amount is a mismatch naming both amounts',
      checkout: [{ type: 'platform_fee', amount: 100 }],
      fees: [fee('pyfee_platform', 'platform_fee', 80, null)],
      findings: [checkoutMismatch([{ type: 'platform_fee', expected: 100, actual: 80 }], 20)],
    },
    {
      name: 'a fee missing from the payment is a mismatch with no actual amount',
      checkout: [{ type: 'platform_fee', amount: 100 }],
      fees: [],
      findings: [checkoutMismatch([{ type: 'platform_fee', expected: 100, actual: null }], 100)],
    },
    {
      name: 'a fee priced by a configuration is not the explicit fee the checkout set',
      checkout: [{ type: 'platform_fee', amount: 62 }],
      fees: [fee('pyfee_platform', 'platform_fee', 62, platform)],
      findings: [checkoutMismatch([{ type: 'platform_fee', expected: 62, actual: null }], 62)],
    },
    {
      name: 'every differing type is listed in one finding; matching types are not',
      checkout: [
        { type: 'platform_fee', amount: 100 },
        { type: 'processing_fee', amount: 300 },
        { type: 'other_fee', amount: 5 },
      ],
      fees: [
        fee('pyfee_platform', 'platform_fee', 100, null),
        fee('pyfee_proc', 'processing_fee', 290, null),
      ],
      findings: [
        checkoutMismatch(
          [
            { type: 'processing_fee', expected: 300, actual: 290 },
            { type: 'other_fee', expected: 5, actual: null },
          ],
          10 + 5,
        ),
      ],
    },
  ])('$name', ({ checkout, fees, findings }) => {
    expect(checkCheckoutFees(facts({ fees, checkout: onCheckout(checkout) }))).toEqual(findings);
  });

  it('a payment no checkout set fees on has nothing to compare', () => {
    expect(checkCheckoutFees(facts({ fees: [fee('pyfee_platform', 'platform_fee', 80, null)] }))).toEqual([]);
  });
});
