import { defineJob } from '../src/queue/job.ts';
import { enqueue } from '../src/queue/queues.ts';
import { listUnreconciledPayments } from '../src/reconciliation/stateQueries.ts';

// A change this recent still has its own reconcile-payment job on the way; older ones lost it.
const GRACE_SECONDS = 60;
// Oldest first; a larger backlog is taken by the next pass.
const PER_PASS = 50_000;
const PER_INSERT = 1_000;

/**
 * Enqueues `reconcile-payment` for every payment whose newest projection state no reconciliation has seen
 * for a minute or more: a job lost with a crashed worker, or one that exhausted its retries, is run again.
 * A payment already waiting is not queued twice (the queue is stately).
 */
export default defineJob('reconcile-stale', {
  async handle(_payload, context) {
    const paymentIds = await listUnreconciledPayments(context.pool, GRACE_SECONDS, PER_PASS);
    let queued = 0;
    for (let start = 0; start < paymentIds.length; start += PER_INSERT) {
      const ids = await enqueue(
        context.boss,
        'reconcile-payment',
        paymentIds.slice(start, start + PER_INSERT).map((paymentId) => ({ payment_id: paymentId })),
      );
      queued += ids.length;
    }
    const level = paymentIds.length > 0 ? 'warn' : 'info';
    context.log[level]({ unreconciled: paymentIds.length, queued }, 'stale reconciliations enqueued');
  },
});
