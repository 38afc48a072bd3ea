import { findFeeSync } from '../db/findFeeSync.ts';
import { findPaymentDetail } from '../db/findPaymentDetail.ts';
import { type FeeConfigurationRow, listFeeConfigurations } from '../db/listFeeConfigurations.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { upsertPaymentReconciliation } from '../db/upsertPaymentReconciliation.ts';
import { achReturnFinding } from '../domain/achReturns.ts';
import { reconcileCheckoutFees } from '../domain/reconcileCheckout.ts';
import type { FeeConfiguration, FeeToReconcile, PaymentToReconcile } from '../domain/reconcileFees.ts';
import { reconcileFees } from '../domain/reconcileFees.ts';
import { type RefundToReconcile, reconcileRefunds } from '../domain/reconcileRefunds.ts';
import { recordFindings } from '../findings/recordFindings.ts';

type Json = Record<string, unknown>;

const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
const cents = (value: unknown) => (typeof value === 'number' ? value : null);

/**
 * Reconciles one payment: its fees against the fee configurations of its sub account, its refunds and
 * returned fees, an ACH return, and the fees set on its checkout. Records the result as that payment's
 * findings (opening, refreshing and resolving). Idempotent.
 */
export async function reconcilePayment(pool: Pool, paymentId: string, now: Date): Promise<boolean> {
  const detail = await findPaymentDetail(pool, paymentId);
  if (!detail) return false;
  const row = detail.payment;
  const accountId = String(row.account_id);
  const synced = await findFeeSync(pool, accountId);
  const configurations = synced ? (await listFeeConfigurations(pool, accountId)).map(toConfiguration) : null;

  const payment: PaymentToReconcile = {
    id: paymentId,
    amount: Number(row.amount),
    feeAmount: cents(row.fee_amount),
    applicationFeeAmount: cents(row.application_fee_amount),
    createdAt: date(row.created_at),
    methodKind: (row.method_kind ?? null) as PaymentToReconcile['methodKind'],
    cardBrand: (row.card_brand ?? null) as string | null,
    expedited: row.expedited === true,
  };
  const fees = detail.fees.map(toFee);
  const refunds = detail.refunds.map(toRefund);
  const feeCheck = reconcileFees(payment, fees, configurations);
  const findings = [...feeCheck.findings, ...reconcileRefunds(payment, fees, refunds)];
  const achReturn = achReturnFinding({
    id: paymentId,
    amount: payment.amount,
    methodKind: payment.methodKind,
    status: (row.status ?? null) as string | null,
    errorDescription: (row.error_description ?? null) as string | null,
    succeededAt: date(row.succeeded_at),
    failedAt: date(row.failed_at),
  });
  if (achReturn) findings.push(achReturn);
  const checkout = detail.checkout;
  if (checkout && Array.isArray(checkout.fees) && checkout.fees.length > 0) {
    const mismatch = reconcileCheckoutFees({ id: String(checkout.id), fees: checkout.fees }, paymentId, fees);
    if (mismatch) findings.push(mismatch);
  }

  await withTransaction(pool, async (client) => {
    const context = {
      scope: `payment:${paymentId}`,
      accountId,
      currency: (row.currency ?? null) as string | null,
      now,
    };
    await recordFindings(client, context, findings);
    await upsertPaymentReconciliation(client, {
      paymentId,
      accountId,
      reconciledAt: now,
      ...feeCheck.counts,
    });
  });
  return true;
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
    sourceConfigurationId: (fee.source_configuration_id ?? null) as string | null,
    sourceFeeType: (fee.source_fee_type ?? null) as string | null,
    snapshotUpdatedAt: date(fee.snapshot_updated_at) ?? new Date(0),
  };
}

function toRefund(refund: Json): RefundToReconcile {
  const returned = Array.isArray(refund.returned_fees) ? (refund.returned_fees as Json[]) : [];
  return {
    id: String(refund.id),
    amount: Number(refund.amount),
    status: (refund.status ?? null) as string | null,
    createdAt: date(refund.created_at),
    updatedAt: date(refund.updated_at) ?? new Date(0),
    returnedFees: returned.map((fee) => ({
      id: String(fee.id),
      paymentFeeId: (fee.payment_fee_id ?? null) as string | null,
      returnedAmount: cents(fee.returned_amount),
      originalAmount: cents(fee.original_amount),
      remainingAmount: cents(fee.remaining_amount),
    })),
  };
}
