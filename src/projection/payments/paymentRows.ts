import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import { cardColumnsOf, declineColumnsOf } from '../declines/declineRows.ts';
import type { EventToProject } from '../event.ts';
import { type RefundRows, refundRowsOf } from '../refunds/refundRows.ts';
import type { FeeTotals, PaymentFeeRow, PaymentRow } from './paymentQueries.ts';
import {
  isTerminalStatus,
  methodKindOf,
  paymentFacts,
  paymentMethodIdOf,
  paymentModeOf,
  paymentSchema,
} from './paymentSnapshot.ts';

export type PaymentRows = {
  payment: PaymentRow;
  /** The snapshot's fee list, null when it has none; stored only if this snapshot's fees end up shown. */
  fees: PaymentFeeRow[] | null;
  refunds: RefundRows[];
};

/** The rows of a payment snapshot: the payment, its fee list and the refunds embedded in it. */
export function paymentRowsOf(event: EventToProject, data: unknown): PaymentRows {
  const payment = paymentSchema.parse(data);
  const updatedAt = payment.updated_at ?? payment.created_at ?? event.receivedAt;
  const facts = paymentFacts(payment, event.eventName, updatedAt);
  const methodKind = methodKindOf(payment);
  const fees =
    payment.fees?.map(
      (fee) =>
        ({
          id: fee.id,
          payment_id: payment.id,
          type: fee.type,
          amount: fee.amount,
          remaining_amount: fee.remaining_amount ?? null,
          currency: fee.currency ?? payment.currency.toLowerCase(),
          source_configuration_id: fee.source_configuration_id ?? null,
          source_fee_type: fee.source_fee_type ?? null,
          snapshot_updated_at: updatedAt,
        }) satisfies PaymentFeeRow,
    ) ?? null;
  const row = {
    id: payment.id,
    account_id: payment.account_id ?? event.accountId,
    account_type: event.accountType,
    amount: payment.amount,
    currency: payment.currency.toLowerCase(),
    status: payment.status ?? null,
    status_terminal: isTerminalStatus(payment.status),
    // A snapshot without a status says nothing about it: it never wins the status.
    status_updated_at: payment.status ? updatedAt : '-infinity',
    status_event_row_id: event.rowId,
    capture_strategy: payment.capture_strategy ?? null,
    captured: payment.captured ?? null,
    payment_mode: paymentModeOf(payment),
    method_kind: methodKind,
    card_brand: payment.payment_method?.card?.brand ?? null,
    expedited: methodKind === 'ach' && payment.expedited === true,
    fee_amount: payment.fee_amount ?? null,
    application_fee_amount: payment.application_fee_amount ?? null,
    amount_refunded: payment.amount_refunded ?? null,
    returned: payment.returned ?? null,
    amount_returned: payment.amount_returned ?? null,
    error_code: payment.error_code ?? null,
    error_description: payment.error_description ?? null,
    checkout_id: payment.checkout_id ?? null,
    payment_method_id: paymentMethodIdOf(payment),
    created_at: payment.created_at ?? null,
    updated_at: updatedAt,
    event_row_id: event.rowId,
    authorized_at: facts.authorizedAt,
    captured_at: facts.capturedAt,
    succeeded_at: facts.succeededAt,
    failed_at: facts.failedAt,
    canceled_at: facts.canceledAt,
    // A snapshot without a fee list says nothing about the fees: it never wins them.
    fees_updated_at: payment.fees ? updatedAt : '-infinity',
    fees_event_row_id: payment.fees ? event.rowId : 0,
    ...feeTotalsOf(fees ?? []),
    delivered_updated_at: event.source === 'webhook' ? updatedAt : null,
    snapshot: redactCardNumbers(data),
    ...cardColumnsOf(data as Record<string, unknown>, paymentMethodIdOf(payment)),
    ...declineColumnsOf(data as Record<string, unknown>, event.eventName),
  } satisfies PaymentRow;
  // The raw objects, not the parsed ones: the refund projection validates and keeps them as received.
  const rawRefunds = (data as { refunds?: Record<string, unknown>[] | null }).refunds ?? [];
  const refunds = rawRefunds.map((refund) =>
    refundRowsOf(event, { ...refund, payment_id: refund.payment_id ?? payment.id }, updatedAt),
  );
  return { payment: row, fees, refunds };
}

/** The fee list's sums by type and by source, as the daily report shows them. */
function feeTotalsOf(fees: readonly PaymentFeeRow[]): FeeTotals {
  const totals: FeeTotals = {
    fees_total: 0,
    fees_processing: 0,
    fees_platform: 0,
    fees_other: 0,
    fees_configured: 0,
    fees_explicit: 0,
  };
  for (const fee of fees) {
    totals.fees_total += fee.amount;
    if (fee.type === 'processing_fee') totals.fees_processing += fee.amount;
    else if (fee.type === 'platform_fee') totals.fees_platform += fee.amount;
    else totals.fees_other += fee.amount;
    if (fee.source_configuration_id !== null) totals.fees_configured += fee.amount;
    else totals.fees_explicit += fee.amount;
  }
  return totals;
}
