import { defineJob } from '../src/queue/job.ts';
import { reconcileEachPayment } from '../src/reconciliation/reconcilePayment.ts';

// A fetch of several jobs is reconciled as one set of payments; a full fetch means a backlog, so the worker
// fetches again at once instead of waiting for its next poll (src/queue/workers.ts).
const JOBS_PER_FETCH = 4;

/**
 * Reconciles the payments of the fetched jobs at once (a handful of statements for all of them). A job whose
 * payments include one that failed on its own fails, naming it, so its retries run them again; the others'
 * results are recorded all the same.
 */
export default defineJob('reconcile-payments', {
  batchSize: JOBS_PER_FETCH,
  async handleBatch(payloads, context) {
    const ids = [...new Set(payloads.flatMap((payload) => payload.payment_ids))];
    const errors = await reconcileEachPayment(context.pool, ids, context.now(), {
      alertCount: context.config.DECLINE_ALERT_COUNT,
    });
    const errorOf = new Map(ids.map((id, index) => [id, errors[index]]));
    return payloads.map(({ payment_ids }) => {
      const failed = payment_ids.filter((id) => errorOf.get(id) !== null);
      const [first] = failed;
      if (first === undefined) return null;
      return new Error(
        `${failed.length} of ${payment_ids.length} payments not reconciled; ${first}: ${String(errorOf.get(first))}`,
        { cause: errorOf.get(first) },
      );
    });
  },
});
