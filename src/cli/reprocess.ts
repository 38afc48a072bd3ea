import { parseArgs } from 'node:util';
import { createPool, withTransaction } from '../db/pool.ts';
import { resetProjections } from '../projection/eventQueries.ts';
import { processStoredEvent } from '../projection/processStoredEvent.ts';
import { createBoss } from '../queue/boss.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { createProgress } from './progress.ts';
import { countEventsWithStatus, listEventIdsToProcess } from './queries.ts';

export const usage = 'tally reprocess --all | --failed';

/**
 * --all truncates the projections and rebuilds them from the raw log, in arrival order; --failed retries
 * the deliveries left failed. Deliveries that still fail are counted and stay visible as failed.
 */
export async function reprocessEvents(args: string[], { config, log }: CliContext): Promise<number> {
  const { values } = parseArgs({ args, options: { all: { type: 'boolean' }, failed: { type: 'boolean' } } });
  if (values.all === values.failed) throw new Error(`give exactly one of --all or --failed; usage: ${usage}`);
  const databaseUrl = await resolveDatabaseUrl(config);
  const pool = createPool(databaseUrl, log, 4);
  // Only to enqueue reconciliations with each projection change; this process runs no workers.
  const boss = createBoss(databaseUrl, log, { max: 2 });
  await boss.start();
  try {
    if (values.all) await withTransaction(pool, (client) => resetProjections(client));
    const statuses = values.all ? ['received'] : ['failed'];
    const total = await countEventsWithStatus(pool, statuses);
    const progress = createProgress(total);
    let done = 0;
    let failed = 0;
    let afterId = 0;
    for (;;) {
      const ids = await listEventIdsToProcess(pool, { afterId, limit: 500, statuses });
      for (const id of ids) {
        await processStoredEvent({ pool, boss }, id).catch(() => {
          failed += 1;
        });
        done += 1;
        progress.update(done, `failed ${failed}`);
      }
      const last = ids.at(-1);
      if (last === undefined) break;
      afterId = last;
    }
    progress.finish();
    process.stdout.write(`reprocessed ${done} deliveries, ${failed} failed\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await boss.stop({ graceful: false });
    await pool.end();
  }
}
