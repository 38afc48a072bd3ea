import { reconcilePayouts } from '../src/payouts/reconcilePayouts.ts';
import { defineJob } from '../src/queue/job.ts';

/** Judges the payouts named (rules 1–4); a payout whose lines are still loading stays unjudged. */
export default defineJob('reconcile-payouts', {
  async handle(payload, context) {
    const summary = await reconcilePayouts(context.pool, payload.payout_ids, context.now(), context.config);
    context.log.info(
      { judged: summary.judged.length, unjudged: summary.unjudged.length },
      'payouts reconciled',
    );
  },
});
