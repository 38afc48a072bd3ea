import type { FindingDraft } from '../findings/findings.ts';
import type { DisputeToReconcile } from './queries.ts';

// `forfeited` is a loss the merchant chose; the money is gone all the same.
const LOST = new Set(['lost', 'forfeited']);
const OPEN = new Set(['needs_response', 'under_review']);

/** `dispute_open` while the merchant must act or the network decides; `dispute_lost` once the money is gone. */
export function disputeFindings(dispute: DisputeToReconcile): FindingDraft[] {
  const base = {
    subjectType: 'dispute',
    subjectId: dispute.id,
    accountId: dispute.accountId,
    ...(dispute.currency ? { currency: dispute.currency } : {}),
    expected: null,
    actual: dispute.amount,
    atStake: dispute.amount,
  };
  const details = {
    payment_id: dispute.paymentId,
    amount: dispute.amount,
    reason: dispute.reason,
    due_date: dispute.dueDate,
    status: dispute.status,
  };
  if (dispute.status !== null && OPEN.has(dispute.status))
    return [{ code: 'dispute_open', severity: 'warning', ...base, details }];
  if (dispute.status !== null && LOST.has(dispute.status))
    return [{ code: 'dispute_lost', severity: 'error', ...base, details }];
  return [];
}

/** `dispute_open` and `dispute_lost` for each dispute of the payment, known or not yet. */
export function checkDisputes({ disputes }: { disputes: DisputeToReconcile[] }): FindingDraft[] {
  return disputes.flatMap(disputeFindings);
}
