import type { FindingDraft } from '../findings/findings.ts';
import type { PaymentFacts, RefundWithReturnedFees } from './queries.ts';

// A pending refund may still return fees; only a failed one never will.
const mayReturnFees = (refund: RefundWithReturnedFees) => refund.status !== 'failed';
const succeeded = (refund: RefundWithReturnedFees) => refund.status === 'succeeded';
const creationTime = (refund: RefundWithReturnedFees) => (refund.createdAt ?? refund.updatedAt).getTime();

/** `refund_exceeds_payment`: succeeded refunds never add up to more than the payment. */
export function checkRefundTotal({ payment, refunds }: PaymentFacts): FindingDraft[] {
  const counted = refunds.filter(succeeded);
  const refunded = counted.reduce((sum, refund) => sum + refund.amount, 0);
  if (refunded <= payment.amount) return [];
  return [
    {
      code: 'refund_exceeds_payment',
      severity: 'error',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: payment.amount,
      actual: refunded,
      atStake: refunded - payment.amount,
      details: { refunds: counted.map((refund) => ({ id: refund.id, amount: refund.amount })) },
    },
  ];
}

/**
 * Each fee a refund returned names a fee of the payment, carries its amount as `original_amount`, returns
 * no more than was left of it, and leaves `remaining_amount` = original − everything returned so far.
 * Refunds are taken in creation order; a failed refund returned nothing.
 */
export function checkReturnedFees({ payment, fees, refunds }: PaymentFacts): FindingDraft[] {
  const findings: FindingDraft[] = [];
  const feesById = new Map(fees.map((fee) => [fee.id, fee]));
  const returnedSoFar = new Map<string, number>();
  const ordered = refunds
    .filter(mayReturnFees)
    .sort((a, b) => creationTime(a) - creationTime(b) || a.id.localeCompare(b.id));
  for (const refund of ordered) {
    const unknown = refund.returnedFees.filter(
      (returned) => !returned.paymentFeeId || !feesById.has(returned.paymentFeeId),
    );
    // Without the payment's fees there is nothing to compare with yet.
    if (unknown.length > 0 && fees.length > 0)
      findings.push(returnedFeesUnknown(payment.id, refund.id, fees, unknown));
    for (const returned of refund.returnedFees) {
      const fee = returned.paymentFeeId ? feesById.get(returned.paymentFeeId) : undefined;
      if (!fee) continue;
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
          atStake: Math.abs(returned.originalAmount - fee.amount),
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
          // What was returned beyond what was left of the fee.
          atStake: after - Math.max(before, fee.amount),
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
          atStake: Math.abs(returned.remainingAmount - (fee.amount - after)),
          details: { ...context, returned_so_far: after },
        });
      }
    }
  }
  return findings;
}

// Money returned against fees the payment does not have; null when no amount was stated.
function returnedAmountOf(returnedFees: RefundWithReturnedFees['returnedFees']): number | null {
  const stated = returnedFees.flatMap((returned) =>
    returned.returnedAmount === null ? [] : [returned.returnedAmount],
  );
  return stated.length === 0 ? null : stated.reduce((sum, amount) => sum + amount, 0);
}

/**
 * `returned_fee_unknown` is about the refund (docs/findings.md), so a refund that returned several fees the payment
 * does not have (a processing and a platform fee, say) is one finding listing each of them, not one per
 * returned fee: the table keeps one open finding per (code, subject).
 */
function returnedFeesUnknown(
  paymentId: string,
  refundId: string,
  fees: PaymentFacts['fees'],
  unknown: RefundWithReturnedFees['returnedFees'],
): FindingDraft {
  return {
    code: 'returned_fee_unknown',
    severity: 'error',
    subjectType: 'refund',
    subjectId: refundId,
    expected: fees.map((candidate) => candidate.id),
    actual: unknown.map((returned) => returned.paymentFeeId),
    atStake: returnedAmountOf(unknown),
    details: {
      payment_id: paymentId,
      returned_fees: unknown.map((returned) => ({ id: returned.id, payment_fee_id: returned.paymentFeeId })),
    },
  };
}

/**
 * `fee_remaining_mismatch`: a payment snapshot as new as every succeeded refund shows each fee's remaining
 * amount = amount − what those refunds returned (an older snapshot is no evidence). An ACH return or a void
 * hands every fee back with no refund object: a remaining amount of 0 is then expected too.
 */
export function checkFeeRemaining({ payment, fees, refunds }: PaymentFacts): FindingDraft[] {
  const counted = refunds.filter(succeeded);
  const newestRefund = Math.max(0, ...counted.map((refund) => refund.updatedAt.getTime()));
  const handedBack = feesHandedBack(payment);
  return fees.flatMap((fee): FindingDraft[] => {
    if (fee.remainingAmount === null || fee.snapshotUpdatedAt.getTime() < newestRefund) return [];
    const returned = counted
      .flatMap((refund) => refund.returnedFees)
      .filter((returnedFee) => returnedFee.paymentFeeId === fee.id)
      .reduce((sum, returnedFee) => sum + (returnedFee.returnedAmount ?? 0), 0);
    if (fee.remainingAmount === fee.amount - returned || (handedBack && fee.remainingAmount === 0)) return [];
    return [
      {
        code: 'fee_remaining_mismatch',
        severity: 'warning',
        subjectType: 'payment_fee',
        subjectId: fee.id,
        expected: fee.amount - returned,
        actual: fee.remainingAmount,
        atStake: Math.abs(fee.remainingAmount - (fee.amount - returned)),
        details: { payment_id: payment.id, fee_amount: fee.amount, returned_by_succeeded_refunds: returned },
      },
    ];
  });
}

/**
 * Whether the payment handed its fees back without a refund object: it says so (`returned`), it was
 * voided (`canceled`), or it is an ACH payment that failed (a return, or a failure before settlement).
 */
export function feesHandedBack(payment: {
  returned: boolean;
  status: string | null;
  methodKind: string | null;
}): boolean {
  return (
    payment.returned ||
    payment.status === 'canceled' ||
    (payment.methodKind === 'ach' && payment.status === 'failed')
  );
}
