import { purgeChanges } from '../src/changes/purgeChanges.ts';
import { DAY_MS } from '../src/domain/days.ts';
import { defineJob } from '../src/queue/job.ts';

/** Removes changes older than CHANGE_RETENTION_DAYS; the feed then answers an older cursor with 410. */
export default defineJob('change-purge', {
  async handle(_payload, context) {
    const days = context.config.CHANGE_RETENTION_DAYS;
    const cutoff = new Date(context.now().getTime() - days * DAY_MS);
    const removed = await purgeChanges(context.pool, cutoff);
    context.log.info({ days, cutoff, removed }, 'changes purged');
  },
});
