import { expect } from 'vitest';
import type { FindingDraft } from '../../src/findings/findings.ts';
import type {
  PaymentFeeToReconcile,
  PaymentToReconcile,
  RefundWithReturnedFees,
} from '../../src/reconciliation/queries.ts';
import { facts, fee, refundRules, sorted, t } from './fixtures.ts';

// Refunds of payment py_1, 10,000 ¢, with a 320 ¢ processing fee and a 50 ¢ platform fee; the findings
// they open, every field a user reads spelled out.

export function paymentFee(
  id: 'pyfee_proc' | 'pyfee_plat',
  amount: number,
  remainingAmount: number | null = null,
  snapshotUpdatedAt = t('2024-06-10T00:00:00Z'),
): PaymentFeeToReconcile {
  const type = id === 'pyfee_plat' ? 'platform_fee' : 'processing_fee';
  return fee(id, type, amount, 'sfc_any', { remainingAmount, snapshotUpdatedAt });
}

export const FEES = [paymentFee('pyfee_proc', 320), paymentFee('pyfee_plat', 50)];

export type RefundCase = {
  name: string;
  payment?: Partial<PaymentToReconcile>;
  fees: PaymentFeeToReconcile[];
  refunds: RefundWithReturnedFees[];
  findings: FindingDraft[];
};

/** Runs every refund rule on the case's payment: exactly `findings` open. */
export function runRefundCase(row: RefundCase): void {
  const paymentFacts = facts({
    payment: { amount: 10_000, ...row.payment },
    fees: row.fees,
    refunds: row.refunds,
  });
  expect(refundRules(paymentFacts)).toEqual(sorted(row.findings));
}

export function refundExceeds(actual: number, refunds: { id: string; amount: number }[]): FindingDraft {
  return {
    code: 'refund_exceeds_payment',
    severity: 'error',
    subjectType: 'payment',
    subjectId: 'py_1',
    expected: 10_000,
    actual,
    atStake: actual - 10_000,
    details: { refunds },
  };
}

/** The refund's returned fees (id and the `payment_fee_id` it names) that name no fee of the payment. */
export function returnedFeeUnknown(
  refundId: string,
  unknown: [string, string | null][],
  atStake: number | null,
): FindingDraft {
  return {
    code: 'returned_fee_unknown',
    severity: 'error',
    subjectType: 'refund',
    subjectId: refundId,
    expected: ['pyfee_proc', 'pyfee_plat'],
    actual: unknown.map(([, paymentFeeId]) => paymentFeeId),
    atStake,
    details: {
      payment_id: 'py_1',
      returned_fees: unknown.map(([id, paymentFeeId]) => ({ id, payment_fee_id: paymentFeeId })),
    },
  };
}

/** Which returned fee, of which refund, returned part of which fee (and that fee's amount). */
type Returned = { returnedFee: string; refund: string; fee: 'pyfee_proc' | 'pyfee_plat' };

const context = (returned: Returned) => ({
  payment_id: 'py_1',
  refund_id: returned.refund,
  payment_fee_id: returned.fee,
  fee_amount: returned.fee === 'pyfee_plat' ? 50 : 320,
});

export function originalMismatch(returned: Returned, actual: number): FindingDraft {
  return {
    code: 'returned_fee_original_mismatch',
    severity: 'error',
    subjectType: 'returned_fee',
    subjectId: returned.returnedFee,
    expected: context(returned).fee_amount,
    actual,
    atStake: Math.abs(actual - context(returned).fee_amount),
    details: context(returned),
  };
}

export function exceedsRemaining(
  returned: Returned,
  expected: number,
  actual: number,
  returnedBefore: number,
  atStake: number,
): FindingDraft {
  return {
    code: 'returned_fee_exceeds_remaining',
    severity: 'error',
    subjectType: 'returned_fee',
    subjectId: returned.returnedFee,
    expected,
    actual,
    atStake,
    details: { ...context(returned), returned_before: returnedBefore },
  };
}

export function remainingMismatch(
  returned: Returned,
  expected: number,
  actual: number,
  returnedSoFar: number,
): FindingDraft {
  return {
    code: 'returned_fee_remaining_mismatch',
    severity: 'warning',
    subjectType: 'returned_fee',
    subjectId: returned.returnedFee,
    expected,
    actual,
    atStake: Math.abs(actual - expected),
    details: { ...context(returned), returned_so_far: returnedSoFar },
  };
}

export function feeRemainingMismatch(
  feeId: 'pyfee_proc' | 'pyfee_plat',
  expected: number,
  actual: number,
  returnedBySucceededRefunds: number,
): FindingDraft {
  return {
    code: 'fee_remaining_mismatch',
    severity: 'warning',
    subjectType: 'payment_fee',
    subjectId: feeId,
    expected,
    actual,
    atStake: Math.abs(actual - expected),
    details: {
      payment_id: 'py_1',
      fee_amount: feeId === 'pyfee_plat' ? 50 : 320,
      returned_by_succeeded_refunds: returnedBySucceededRefunds,
    },
  };
}
