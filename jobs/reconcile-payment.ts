import { defineJob } from '../src/queue/job.ts';
import { reconcilePayment } from '../src/reconciliation/reconcilePayment.ts';

/** Reconciles one payment; its queue keeps at most one queued and one running per payment. */
export default defineJob('reconcile-payment', {
  batchSize: 20,
  async handle(payload, context) {
    await reconcilePayment(context.pool, payload.payment_id, context.now());
  },
});
