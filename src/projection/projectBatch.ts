import type { Queryable } from '../db/pool.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import type { BatchRows } from './batchRows.ts';
import { appendChangesOfBatch } from './changesOfBatch.ts';
import { listPaymentsOfCheckouts, upsertCheckouts } from './checkouts/checkoutQueries.ts';
import { listPaymentsAfterDeclines, recordPaymentDeclines } from './declines/declineQueries.ts';
import { upsertDisputes } from './disputes/disputeQueries.ts';
import { forwardingConflict } from './forwarding/forwardingConflict.ts';
import {
  insertForwardingOutcomes,
  listForwardingOutcomes,
  upsertForwardingRequests,
} from './forwarding/forwardingQueries.ts';
import type { ForwardingRows } from './forwarding/forwardingRows.ts';
import { replacePaymentFees, upsertPayments } from './payments/paymentQueries.ts';
import {
  lockPayouts,
  refreshLineCompleteness,
  upsertPayoutLineCounts,
  upsertPayoutLines,
  upsertPayouts,
} from './payouts/payoutQueries.ts';
import { copyRefundAccountKeys, replaceReturnedFees, upsertRefunds } from './refunds/refundQueries.ts';

type FeeList<Fee> = { ownerId: string; rowId: number; fees: Fee[] | null };

/**
 * The fee lists to store: per owner, the one of the snapshot whose fees the upsert left shown (its delivery
 * row id), if that snapshot is in the batch; otherwise the stored list stays. The last list of an owner
 * wins, as when a payment lists one refund twice and each is applied in turn.
 */
function shownFeeLists<Fee>(lists: FeeList<Fee>[], shownRowIds: Map<string, number>) {
  const shown = new Map<string, Fee[]>();
  for (const { ownerId, rowId, fees } of lists) {
    if (fees !== null && shownRowIds.get(ownerId) === rowId) shown.set(ownerId, fees);
  }
  return { ownerIds: [...shown.keys()], fees: [...shown.values()].flat() };
}

/**
 * Writes the rows of a batch with one statement per table, whatever the number of deliveries: the
 * newer-wins rules run in SQL over the whole batch (see `newerWinsUpsert`), then the changes the feed
 * serves are appended in the same transaction. Returns the payments and the
 * payouts whose reconciliation the batch may affect.
 */
export async function projectBatch(
  db: Queryable,
  batch: BatchRows,
): Promise<{ paymentIds: string[]; payoutIds: string[] }> {
  const paymentFeesShown = await upsertPayments(
    db,
    batch.payments.map(({ payment }) => payment),
  );
  const paymentFees = shownFeeLists(
    batch.payments.map(({ payment, fees }) => ({ ownerId: payment.id, rowId: payment.event_row_id, fees })),
    paymentFeesShown,
  );
  await replacePaymentFees(db, paymentFees.ownerIds, paymentFees.fees);

  const returnedFeesShown = await upsertRefunds(
    db,
    batch.refunds.map(({ refund }) => refund),
  );
  const returnedFees = shownFeeLists(
    batch.refunds.map(({ refund, returnedFees }) => ({
      ownerId: refund.id,
      rowId: refund.event_row_id,
      fees: returnedFees,
    })),
    returnedFeesShown,
  );
  await replaceReturnedFees(db, returnedFees.ownerIds, returnedFees.fees);
  await copyRefundAccountKeys(
    db,
    batch.refunds.map(({ refund }) => refund.id),
    batch.payments.map(({ payment }) => payment.id),
  );

  await upsertCheckouts(db, batch.checkouts);
  await upsertDisputes(db, batch.disputes);
  await upsertForwardingRequests(
    db,
    batch.forwarding.map(({ request }) => request),
  );
  await recordForwardingOutcomes(db, batch.forwarding);
  // Read after every write of the batch, so a payment and its checkout projected together are linked.
  const checkoutPayments = await listPaymentsOfCheckouts(db, [...new Set(batch.checkoutIds)]);
  const projectedPayments = [...new Set(batch.payments.map(({ payment }) => payment.id))];
  await recordPaymentDeclines(db, projectedPayments);
  const retriesAfterDeclines = await listPaymentsAfterDeclines(db, projectedPayments);
  const payoutIds = [...new Set(batch.payoutIds)];
  await projectPayouts(db, batch, payoutIds);
  await appendChangesOfBatch(db, batch);
  return { paymentIds: [...batch.paymentIds, ...checkoutPayments, ...retriesAfterDeclines], payoutIds };
}

/** Payouts, their lines and line counts, then whether each payout named has all its lines projected. */
async function projectPayouts(db: Queryable, batch: BatchRows, payoutIds: string[]): Promise<void> {
  if (payoutIds.length === 0) return;
  await lockPayouts(db, payoutIds);
  await upsertPayouts(db, batch.payouts);
  await upsertPayoutLines(db, batch.payoutLines);
  await upsertPayoutLineCounts(db, batch.payoutLineCounts);
  await refreshLineCompleteness(db, payoutIds);
}

/**
 * Records each terminal outcome event, then checks every request that got one against all its recorded
 * outcomes: a second, different outcome opens `forwarding_outcome_conflict` in the same transaction.
 */
async function recordForwardingOutcomes(db: Queryable, forwarding: ForwardingRows[]): Promise<void> {
  const outcomes = forwarding.flatMap(({ outcome }) => (outcome ? [outcome] : []));
  if (outcomes.length === 0) return;
  await insertForwardingOutcomes(db, outcomes);
  // The newest outcome event of a request names the account its finding is filed under.
  const accountByRequest = new Map(
    forwarding
      .filter(({ outcome }) => outcome !== null)
      .sort((a, b) => a.request.event_row_id - b.request.event_row_id)
      .map(({ request, accountId }) => [request.id, accountId]),
  );
  const recorded = await listForwardingOutcomes(db, [...accountByRequest.keys()]);
  const now = new Date();
  // One findings scope per request, so one call each; only requests with an outcome in the batch.
  for (const [requestId, accountId] of accountByRequest) {
    const conflict = forwardingConflict(
      requestId,
      recorded
        .filter((row) => row.forwarding_request_id === requestId)
        .map((row) => ({
          status: row.status,
          failureReason: row.failure_reason,
          responseStatusCode: row.response_status_code,
        })),
    );
    const context = { scope: `forwarding:${requestId}`, accountId, currency: null, now };
    await recordFindings(db, context, conflict ? [conflict] : []);
  }
}
