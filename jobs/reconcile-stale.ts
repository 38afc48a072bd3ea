import { judgeWhatAStoppedRebuildLeft } from '../src/projection/rebuild.ts';
import { enqueueReconciliations } from '../src/queue/enqueueReconciliations.ts';
import { defineJob } from '../src/queue/job.ts';
import { listUnreconciledPayments } from '../src/reconciliation/stateQueries.ts';

// A change this recent still has its own reconcile-payments job on the way; older ones lost it.
const GRACE_SECONDS = 60;
// Oldest first; a larger backlog is taken by the next pass.
const PER_PASS = 50_000;

/**
 * Enqueues `reconcile-payments` for every payment whose newest projection state no reconciliation has seen
 * for a minute or more: a job lost with a crashed worker, or one that exhausted its retries, is run again.
 * First, what a rebuild that stopped before its end still owed is queued (every payment it touched and every
 * payout), and that is the pass: its payments are among them. A rebuild running puts this job back.
 */
export default defineJob('reconcile-stale', {
  async handle(_payload, context) {
    const owed = await judgeWhatAStoppedRebuildLeft(context.pool, context.boss);
    if (owed !== null) {
      context.log.warn(
        owed,
        `a rebuild stopped before judging what it rebuilt: queued ${owed.payments} payments and ${owed.payouts} payouts`,
      );
      return;
    }
    const paymentIds = await listUnreconciledPayments(context.pool, GRACE_SECONDS, PER_PASS);
    const queued = await enqueueReconciliations(context.boss, paymentIds);
    const level = paymentIds.length > 0 ? 'warn' : 'info';
    context.log[level]({ unreconciled: paymentIds.length, queued }, 'stale reconciliations enqueued');
  },
});
