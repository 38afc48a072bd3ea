import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { EventToProject } from '../event.ts';
import type { DisputeRow } from './disputeQueries.ts';
import { disputeSchema, disputeStatus } from './disputeSnapshot.ts';

/** The row of a dispute snapshot (`dp_`). */
export function disputeRowOf(event: EventToProject, data: unknown): DisputeRow {
  const dispute = disputeSchema.parse(data);
  const updatedAt = dispute.updated_at ?? dispute.created_at ?? event.receivedAt;
  const { status, rank } = disputeStatus(event.eventName, dispute.status);
  return {
    id: dispute.id,
    payment_id: dispute.payment_id,
    account_id: dispute.account_id ?? event.accountId,
    account_type: event.accountType,
    amount: dispute.amount ?? null,
    currency: dispute.currency?.toLowerCase() ?? null,
    reason: dispute.reason ?? null,
    due_date: dispute.due_date ?? null,
    status,
    status_rank: rank,
    // A snapshot without a status says nothing about it: it never wins the status.
    status_updated_at: status === null ? '-infinity' : updatedAt,
    status_event_row_id: event.rowId,
    created_at: dispute.created_at ?? null,
    updated_at: updatedAt,
    event_row_id: event.rowId,
    snapshot: redactCardNumbers(data),
  };
}
