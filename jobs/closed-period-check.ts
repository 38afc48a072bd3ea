import { checkClosedPeriods } from '../src/close/checkClosedPeriods.ts';
import { defineJob } from '../src/queue/job.ts';

/** Recomputes every closed period and opens `closed_period_changed` where its stored numbers no longer hold. */
export default defineJob('closed-period-check', {
  async handle(_payload, context) {
    const checked = await checkClosedPeriods(context.pool, context.config, context.now());
    context.log.info(checked, 'closed periods checked');
  },
});
