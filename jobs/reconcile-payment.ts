import { z } from 'zod';
import { RECONCILE_PAYMENT_QUEUE } from '../src/projection/processStoredEvent.ts';
import { defineJob } from '../src/queue/job.ts';
import { reconcilePayment } from '../src/reconciliation/reconcilePayment.ts';

/**
 * Reconciles a payment after any change to it or its refunds, and in bulk after each fee sync. The queue
 * is `stately` with the payment id as singleton key: at most one queued and one running per payment.
 */
export default defineJob({
  name: RECONCILE_PAYMENT_QUEUE,
  payloadSchema: z.object({ payment_id: z.string().min(1) }),
  queue: { policy: 'stately', retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  batchSize: 20,
  async handle(payload, context) {
    await reconcilePayment(context.pool, payload.payment_id, context.now());
  },
});
