import type { FindingDraft } from '../findings/findings.ts';
import type { FeeToReconcile } from './reconcileFees.ts';

export type ReturnedFeeToReconcile = {
  id: string;
  paymentFeeId: string | null;
  returnedAmount: number | null;
  originalAmount: number | null;
  remainingAmount: number | null;
};

export type RefundToReconcile = {
  id: string;
  amount: number;
  status: string | null;
  createdAt: Date | null;
  updatedAt: Date;
  returnedFees: ReturnedFeeToReconcile[];
};

const counts = (refund: RefundToReconcile) => refund.status !== 'failed';
const succeeded = (refund: RefundToReconcile) => refund.status === 'succeeded';

/**
 * Checks refunds and the fees they returned against the payment and its fees: refunds never exceed the
 * payment; each returned fee names a fee of the payment, carries its amount as `original_amount`, and
 * leaves `remaining_amount` = original − everything returned so far (refunds taken in creation order);
 * and a payment snapshot newer than every refund shows each fee's remaining amount accordingly. An ACH
 * return or a void hands every fee back with no refund object (`feesHandedBack`): a remaining amount of 0
 * is then expected too.
 */
export function reconcileRefunds(
  payment: { id: string; amount: number; feesHandedBack: boolean },
  fees: FeeToReconcile[],
  refunds: RefundToReconcile[],
): FindingDraft[] {
  const findings: FindingDraft[] = [];
  const refunded = refunds.filter(succeeded).reduce((sum, refund) => sum + refund.amount, 0);
  if (refunded > payment.amount) {
    findings.push({
      code: 'refund_exceeds_payment',
      severity: 'error',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: payment.amount,
      actual: refunded,
      details: {
        refunds: refunds.filter(succeeded).map((refund) => ({ id: refund.id, amount: refund.amount })),
      },
    });
  }

  const feesById = new Map(fees.map((fee) => [fee.id, fee]));
  const returnedSoFar = new Map<string, number>();
  const ordered = [...refunds].filter(counts).sort((a, b) => time(a) - time(b) || a.id.localeCompare(b.id));
  for (const refund of ordered) {
    for (const returned of refund.returnedFees) {
      const fee = returned.paymentFeeId ? feesById.get(returned.paymentFeeId) : undefined;
      if (!fee) {
        // Without the payment's fees there is nothing to compare with yet.
        if (fees.length > 0) {
          findings.push({
            code: 'returned_fee_unknown',
            severity: 'error',
            subjectType: 'refund',
            subjectId: refund.id,
            expected: fees.map((candidate) => candidate.id),
            actual: returned.paymentFeeId,
            details: { payment_id: payment.id, returned_fee_id: returned.id },
          });
        }
        continue;
      }
      const subject = { subjectType: 'returned_fee', subjectId: returned.id };
      const context = {
        payment_id: payment.id,
        refund_id: refund.id,
        payment_fee_id: fee.id,
        fee_amount: fee.amount,
      };
      const before = returnedSoFar.get(fee.id) ?? 0;
      const after = before + (returned.returnedAmount ?? 0);
      returnedSoFar.set(fee.id, after);
      if (returned.originalAmount !== null && returned.originalAmount !== fee.amount) {
        findings.push({
          code: 'returned_fee_original_mismatch',
          severity: 'error',
          ...subject,
          expected: fee.amount,
          actual: returned.originalAmount,
          details: context,
        });
      }
      if (after > fee.amount) {
        findings.push({
          code: 'returned_fee_exceeds_remaining',
          severity: 'error',
          ...subject,
          // What was left to return; an earlier over-return leaves nothing.
          expected: Math.max(0, fee.amount - before),
          actual: returned.returnedAmount,
          details: { ...context, returned_before: before },
        });
      }
      if (returned.remainingAmount !== null && returned.remainingAmount !== fee.amount - after) {
        findings.push({
          code: 'returned_fee_remaining_mismatch',
          severity: 'warning',
          ...subject,
          expected: fee.amount - after,
          actual: returned.remainingAmount,
          details: { ...context, returned_so_far: after },
        });
      }
    }
  }

  // A payment snapshot older than a refund is no evidence of the fee's remaining amount.
  const newestRefund = Math.max(0, ...refunds.filter(succeeded).map((refund) => refund.updatedAt.getTime()));
  for (const fee of fees) {
    if (fee.remainingAmount === null || fee.snapshotUpdatedAt.getTime() < newestRefund) continue;
    const returned = refunds
      .filter(succeeded)
      .flatMap((refund) => refund.returnedFees)
      .filter((returnedFee) => returnedFee.paymentFeeId === fee.id)
      .reduce((sum, returnedFee) => sum + (returnedFee.returnedAmount ?? 0), 0);
    const handedBack = payment.feesHandedBack && fee.remainingAmount === 0;
    if (fee.remainingAmount !== fee.amount - returned && !handedBack) {
      findings.push({
        code: 'fee_remaining_mismatch',
        severity: 'warning',
        subjectType: 'payment_fee',
        subjectId: fee.id,
        expected: fee.amount - returned,
        actual: fee.remainingAmount,
        details: { payment_id: payment.id, fee_amount: fee.amount, returned_by_succeeded_refunds: returned },
      });
    }
  }
  return findings;
}

function time(refund: RefundToReconcile): number {
  return (refund.createdAt ?? refund.updatedAt).getTime();
}
