import { findPaymentDetail, type PaymentDetail } from '../api/queries.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import {
  type FeeConfigurationRow,
  findFeeSync,
  listFeeConfigurations,
} from '../feeConfigurations/queries.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { disputeFindings } from '../projection/disputeSnapshot.ts';
import { feesHandedBack } from '../projection/paymentSnapshot.ts';
import { achReturnFinding } from './achReturns.ts';
import { listDisputesOfPayment, upsertPaymentReconciliation } from './queries.ts';
import { reconcileCheckoutFees } from './reconcileCheckout.ts';
import {
  type FeeCheckCounts,
  type FeeConfiguration,
  type FeeToReconcile,
  type PaymentToReconcile,
  reconcileFees,
} from './reconcileFees.ts';
import { type RefundToReconcile, reconcileRefunds } from './reconcileRefunds.ts';

type Json = Record<string, unknown>;

const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
const cents = (value: unknown) => (typeof value === 'number' ? value : null);
const text = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * Reconciles one payment: its fees against the fee configurations of its sub account, its refunds and
 * returned fees, an ACH return, the fees set on its checkout, and its disputes. Records the result as
 * that payment's findings (opening, refreshing and resolving). A dispute can arrive before its payment:
 * its findings are recorded even then. Idempotent.
 */
export async function reconcilePayment(pool: Pool, paymentId: string, now: Date): Promise<boolean> {
  const detail = await findPaymentDetail(pool, paymentId);
  const disputes = await listDisputesOfPayment(pool, paymentId);
  if (!detail && disputes.length === 0) return false;
  const findings = disputes.flatMap(disputeFindings);
  const checked = detail ? await checkPayment(pool, paymentId, detail) : null;
  if (checked) findings.push(...checked.findings);
  const accountId = text(detail?.payment.account_id) ?? (disputes[0] as { accountId: string }).accountId;

  await withTransaction(pool, async (client) => {
    const context = {
      scope: `payment:${paymentId}`,
      accountId,
      currency: text(detail?.payment.currency),
      now,
    };
    await recordFindings(client, context, findings);
    if (checked) {
      await upsertPaymentReconciliation(client, {
        paymentId,
        accountId,
        reconciledAt: now,
        ...checked.counts,
      });
    }
  });
  return detail !== null;
}

async function checkPayment(
  pool: Pool,
  paymentId: string,
  detail: PaymentDetail,
): Promise<{ findings: FindingDraft[]; counts: FeeCheckCounts }> {
  const row = detail.payment;
  const synced = await findFeeSync(pool, String(row.account_id));
  const configurations = synced
    ? (await listFeeConfigurations(pool, String(row.account_id))).map(toConfiguration)
    : null;
  const payment: PaymentToReconcile = {
    id: paymentId,
    amount: Number(row.amount),
    status: text(row.status),
    feeAmount: cents(row.fee_amount),
    applicationFeeAmount: cents(row.application_fee_amount),
    createdAt: date(row.created_at),
    methodKind: (row.method_kind ?? null) as PaymentToReconcile['methodKind'],
    cardBrand: text(row.card_brand),
    expedited: row.expedited === true,
  };
  const fees = detail.fees.map(toFee);
  const refunds = detail.refunds.map(toRefund);
  const feeCheck = reconcileFees(payment, fees, configurations);
  const handedBack = feesHandedBack({
    returned: row.returned === true,
    status: payment.status,
    methodKind: payment.methodKind,
  });
  const findings = [
    ...feeCheck.findings,
    ...reconcileRefunds({ ...payment, feesHandedBack: handedBack }, fees, refunds),
  ];
  const achReturn = achReturnFinding({
    id: paymentId,
    amount: payment.amount,
    methodKind: payment.methodKind,
    status: payment.status,
    errorCode: text(row.error_code),
    errorDescription: text(row.error_description),
    succeededAt: date(row.succeeded_at),
    failedAt: date(row.failed_at),
  });
  if (achReturn) findings.push(achReturn);
  const checkout = detail.checkout;
  if (checkout && Array.isArray(checkout.fees) && checkout.fees.length > 0) {
    const mismatch = reconcileCheckoutFees({ id: String(checkout.id), fees: checkout.fees }, paymentId, fees);
    if (mismatch) findings.push(mismatch);
  }
  return { findings, counts: feeCheck.counts };
}

export function toConfiguration(row: FeeConfigurationRow): FeeConfiguration {
  return {
    id: row.id,
    feeType: row.fee_type,
    variableRate: row.variable_rate,
    transactionFeeCents: row.transaction_fee_cents,
    feeCapCents: row.fee_cap_cents,
    effectiveStart: row.effective_start,
    effectiveEnd: row.effective_end,
  };
}

function toFee(fee: Json): FeeToReconcile {
  return {
    id: String(fee.id),
    type: String(fee.type),
    amount: Number(fee.amount),
    remainingAmount: cents(fee.remaining_amount),
    sourceConfigurationId: text(fee.source_configuration_id),
    sourceFeeType: text(fee.source_fee_type),
    snapshotUpdatedAt: date(fee.snapshot_updated_at) ?? new Date(0),
  };
}

function toRefund(refund: Json): RefundToReconcile {
  const returned = Array.isArray(refund.returned_fees) ? (refund.returned_fees as Json[]) : [];
  return {
    id: String(refund.id),
    amount: Number(refund.amount),
    status: text(refund.status),
    createdAt: date(refund.created_at),
    updatedAt: date(refund.updated_at) ?? new Date(0),
    returnedFees: returned.map((fee) => ({
      id: String(fee.id),
      paymentFeeId: text(fee.payment_fee_id),
      returnedAmount: cents(fee.returned_amount),
      originalAmount: cents(fee.original_amount),
      remainingAmount: cents(fee.remaining_amount),
    })),
  };
}
