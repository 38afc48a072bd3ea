import type { CheckoutCompletionRow, CheckoutRow } from './checkouts/checkoutQueries.ts';
import { checkoutCompletionRowOf, checkoutRowOf } from './checkouts/checkoutRows.ts';
import type { DisputeRow } from './disputes/disputeQueries.ts';
import { disputeRowOf } from './disputes/disputeRows.ts';
import type { EventToProject } from './event.ts';
import { familyOf } from './eventFamilies.ts';
import { type ForwardingRows, forwardingRowsOf } from './forwarding/forwardingRows.ts';
import type { PaymentFeeRow, PaymentRow } from './payments/paymentQueries.ts';
import { paymentRowsOf } from './payments/paymentRows.ts';
import type { PayoutLineCountRow, PayoutLineRow, PayoutRow } from './payouts/payoutQueries.ts';
import { payoutLineCountRowOf, payoutLineRowOf, payoutRowOf } from './payouts/payoutRows.ts';
import { type RefundRows, refundRowsOf } from './refunds/refundRows.ts';

/** The typed rows of a batch of stored deliveries, per table, before anything is written. */
export type BatchRows = {
  payments: { payment: PaymentRow; fees: PaymentFeeRow[] | null }[];
  refunds: RefundRows[];
  checkouts: (CheckoutRow | CheckoutCompletionRow)[];
  disputes: DisputeRow[];
  forwarding: ForwardingRows[];
  payouts: PayoutRow[];
  payoutLines: PayoutLineRow[];
  payoutLineCounts: PayoutLineCountRow[];
  /** Payments the deliveries name, whose reconciliation the batch may affect. */
  paymentIds: string[];
  /** Checkouts the deliveries name: their linked payments' checkout fee check may change too. */
  checkoutIds: string[];
  /** Payouts the deliveries name (the payout, a line of it, its line count): their reconciliation may change. */
  payoutIds: string[];
  /** Payouts a webhook brought: their lines are fetched unless Tally has them all. */
  deliveredPayoutIds: string[];
};

/**
 * Parses and validates every delivery of a batch (routed by the shape of its `data`, see `familyOf`) into
 * rows. Pure: a delivery that fails validation throws its ZodError before anything is written.
 */
export function rowsOfBatch(events: EventToProject[]): BatchRows {
  const batch: BatchRows = {
    payments: [],
    refunds: [],
    checkouts: [],
    disputes: [],
    forwarding: [],
    payouts: [],
    payoutLines: [],
    payoutLineCounts: [],
    paymentIds: [],
    checkoutIds: [],
    payoutIds: [],
    deliveredPayoutIds: [],
  };
  for (const event of events) addRowsOf(batch, event);
  return batch;
}

function addRowsOf(batch: BatchRows, event: EventToProject): void {
  switch (familyOf(event.eventName, event.data)) {
    case 'payment': {
      const { payment, fees, refunds } = paymentRowsOf(event, event.data);
      batch.payments.push({ payment, fees });
      batch.refunds.push(...refunds);
      batch.paymentIds.push(payment.id);
      return;
    }
    case 'refund': {
      const rows = refundRowsOf(event, event.data);
      batch.refunds.push(rows);
      batch.paymentIds.push(rows.refund.payment_id);
      return;
    }
    case 'checkout': {
      const checkout = checkoutRowOf(event, event.data);
      batch.checkouts.push(checkout);
      batch.checkoutIds.push(checkout.id);
      return;
    }
    case 'checkout_completion': {
      const completion = checkoutCompletionRowOf(event, event.data);
      batch.checkouts.push(completion);
      batch.checkoutIds.push(completion.id);
      return;
    }
    case 'dispute': {
      const dispute = disputeRowOf(event, event.data);
      batch.disputes.push(dispute);
      batch.paymentIds.push(dispute.payment_id);
      return;
    }
    case 'forwarding':
      batch.forwarding.push(forwardingRowsOf(event, event.data));
      return;
    case 'payout': {
      const payout = payoutRowOf(event, event.data);
      batch.payouts.push(payout);
      batch.payoutIds.push(payout.id);
      if (event.source === 'webhook') batch.deliveredPayoutIds.push(payout.id);
      return;
    }
    case 'payout_line': {
      const line = payoutLineRowOf(event, event.data);
      batch.payoutLines.push(line);
      batch.payoutIds.push(line.payout_id);
      return;
    }
    case 'payout_line_count': {
      const count = payoutLineCountRowOf(event, event.data);
      batch.payoutLineCounts.push(count);
      batch.payoutIds.push(count.payout_id);
      return;
    }
    case 'other':
      return;
  }
}
