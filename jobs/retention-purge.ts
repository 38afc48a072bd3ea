import { DAY_MS } from '../src/domain/days.ts';
import { defineJob } from '../src/queue/job.ts';
import { purgeBodies } from '../src/retention/purgeBodies.ts';

/**
 * Purges the raw and parsed bodies of finished deliveries older than RAW_BODY_RETENTION_DAYS, in small
 * batches; the rows, ids, hashes, headers and processing state stay. Without the setting it does nothing.
 */
export default defineJob('retention-purge', {
  async handle(_payload, context) {
    const days = context.config.RAW_BODY_RETENTION_DAYS;
    if (days === undefined) {
      context.log.info('RAW_BODY_RETENTION_DAYS is not set: bodies are kept forever');
      return;
    }
    const cutoff = new Date(context.now().getTime() - days * DAY_MS);
    const started = Date.now();
    const purged = await purgeBodies(context.pool, { cutoff, now: () => new Date() });
    context.log.info(
      { days, cutoff, ...purged, seconds: (Date.now() - started) / 1000 },
      'raw bodies purged',
    );
  },
});
