import { matchBankDeposits } from '../src/bank/matchDeposits.ts';
import { reconcilePayouts } from '../src/payouts/reconcilePayouts.ts';
import { defineJob } from '../src/queue/job.ts';

/**
 * Judges the payouts named (rules 1–4; a payout whose lines are still loading stays unjudged), then matches
 * bank credits to paid payouts again (rule 5): a payout that became paid may be the one a credit waited for.
 */
export default defineJob('reconcile-payouts', {
  async handle(payload, context) {
    const summary = await reconcilePayouts(context.pool, payload.payout_ids, context.now(), context.config);
    context.log.info(
      { judged: summary.judged.length, unjudged: summary.unjudged.length },
      'payouts reconciled',
    );
    const bank = await matchBankDeposits(context.pool, context.config, context.now());
    context.log.info(bank, 'bank credits matched to payouts');
  },
});
