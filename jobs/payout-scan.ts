import { judgePayoutTimeliness } from '../src/payouts/judgePayoutTimeliness.ts';
import { defineJob } from '../src/queue/job.ts';

/** Payments awaiting payout too long, and payouts overdue: opened, refreshed or resolved. */
export default defineJob('payout-scan', {
  async handle(_payload, context) {
    const summary = await judgePayoutTimeliness(context.pool, context.config, context.now());
    context.log.info(summary, 'payout timeliness scanned');
  },
});
