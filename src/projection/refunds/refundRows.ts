import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { EventToProject } from '../event.ts';
import type { RefundRow, ReturnedFeeRow } from './refundQueries.ts';
import { refundSchema, refundStatusOf } from './refundSnapshot.ts';

export type RefundRows = {
  refund: RefundRow;
  /** The snapshot's returned fees, null when it has none; stored only if they end up shown. */
  returnedFees: ReturnedFeeRow[] | null;
};

/**
 * The rows of a refund snapshot, from a refund event or embedded in a payment. An embedded refund without
 * `updated_at` takes its payment's, so the two sources order consistently.
 */
export function refundRowsOf(
  event: EventToProject,
  data: unknown,
  fallbackUpdatedAt: Date = event.receivedAt,
): RefundRows {
  const refund = refundSchema.parse(data);
  const updatedAt = refund.updated_at ?? refund.created_at ?? fallbackUpdatedAt;
  const row = {
    id: refund.id,
    payment_id: refund.payment_id,
    amount: refund.amount,
    reason: refund.reason ?? null,
    status: refundStatusOf(refund.status),
    created_at: refund.created_at ?? null,
    updated_at: updatedAt,
    event_row_id: event.rowId,
    returned_fees_updated_at: refund.returned_fees ? updatedAt : '-infinity',
    returned_fees_event_row_id: refund.returned_fees ? event.rowId : 0,
    snapshot: redactCardNumbers(data),
  } satisfies RefundRow;
  const returnedFees =
    refund.returned_fees?.map(
      (fee) =>
        ({
          id: fee.id,
          refund_id: refund.id,
          payment_fee_id: fee.payment_fee_id ?? null,
          type: fee.type ?? null,
          returned_amount: fee.returned_amount ?? null,
          original_amount: fee.original_amount ?? null,
          remaining_amount: fee.remaining_amount ?? null,
          currency: fee.currency ?? null,
        }) satisfies ReturnedFeeRow,
    ) ?? null;
  return { refund: row, returnedFees };
}
