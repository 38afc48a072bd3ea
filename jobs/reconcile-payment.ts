import { defineJob } from '../src/queue/job.ts';
import { reconcileEachPayment } from '../src/reconciliation/reconcilePayment.ts';

/**
 * Reconciles a fetched batch of payments at once (a fixed handful of statements for all of them); its queue
 * keeps at most one queued and one running job per payment.
 */
export default defineJob('reconcile-payment', {
  batchSize: 100,
  handleBatch: (payloads, context) =>
    reconcileEachPayment(
      context.pool,
      payloads.map((payload) => payload.payment_id),
      context.now(),
    ),
});
