import { defineJob } from '../src/queue/job.ts';
import { reconcileEachPayment } from '../src/reconciliation/reconcilePayment.ts';

/**
 * Reconciles the job's payments at once (a handful of statements for all of them). If some fail on their
 * own, the others are recorded and the job fails naming the first, so its retries run them again.
 */
export default defineJob('reconcile-payments', {
  async handle(payload, context) {
    const ids = payload.payment_ids;
    const errors = await reconcileEachPayment(context.pool, ids, context.now());
    const failed = ids.flatMap((id, index) => (errors[index] === null ? [] : [{ id, error: errors[index] }]));
    const [first] = failed;
    if (first === undefined) return;
    throw new Error(
      `${failed.length} of ${ids.length} payments not reconciled; ${first.id}: ${String(first.error)}`,
      {
        cause: first.error,
      },
    );
  },
});
