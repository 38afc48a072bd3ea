import { parseArgs } from 'node:util';
import { createPool, withTransaction } from '../db/pool.ts';
import { resetProjections } from '../projection/eventQueries.ts';
import { processStoredEvent } from '../projection/processStoredEvent.ts';
import {
  clearJudgementsDue,
  judgeEverythingRebuilt,
  noteJudgementsDue,
  type RebuildLock,
  takeRebuildLock,
} from '../projection/rebuild.ts';
import { createBoss } from '../queue/boss.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { createProgress } from './progress.ts';
import { countEventsWithStatus, countPurgedDeliveries, listEventIdsToProcess } from './queries.ts';
import { usages } from './usages.ts';

/**
 * --all truncates the projections and rebuilds them from the raw log, in arrival order, while workers
 * project nothing and put their jobs back; then it queues the judgement of every rebuilt payment and payout,
 * judged once as they now stand rather than at each state replayed. --failed retries the deliveries left
 * failed. Deliveries that still fail are counted and stay visible as failed. A delivery whose body retention
 * purged cannot be replayed: --all refuses while there are any, unless --allow-purged accepts rebuilding
 * without them (they stay marked processed, counted in the summary).
 */
export async function reprocessEvents(args: string[], { config, log }: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { all: { type: 'boolean' }, failed: { type: 'boolean' }, 'allow-purged': { type: 'boolean' } },
  });
  if (values.all === values.failed)
    throw new Error(`give exactly one of --all or --failed; usage: ${usages.reprocess}`);
  const databaseUrl = await resolveDatabaseUrl(config);
  const pool = createPool(databaseUrl, log, 4);
  // Only to enqueue judgements and line syncs; this process runs no workers.
  const boss = createBoss(databaseUrl, log, { max: 2 });
  await boss.start();
  let rebuildLock: RebuildLock | null = null;
  let judgementsDue: string | null = null;
  try {
    const purged = values.all ? await countPurgedDeliveries(pool) : 0;
    if (purged > 0 && !values['allow-purged']) {
      process.stderr.write(
        `tally reprocess: ${purged} deliveries cannot be replayed: their body was purged (RAW_BODY_RETENTION_DAYS). ` +
          'A rebuild would lose what they brought; run again with --allow-purged to rebuild without them.\n',
      );
      return 1;
    }
    if (values.all) {
      rebuildLock = await takeRebuildLock(pool, () =>
        process.stderr.write(
          'tally reprocess: waiting for another rebuild to end, or a worker batch to commit, before rebuilding\n',
        ),
      );
      judgementsDue = await withTransaction(pool, async (client) => {
        await resetProjections(client);
        return noteJudgementsDue(client);
      });
    }
    const statuses = values.all ? ['received'] : ['failed'];
    const total = await countEventsWithStatus(pool, statuses);
    const progress = createProgress(total);
    let done = 0;
    let failed = 0;
    let afterId = 0;
    for (;;) {
      await rebuildLock?.stillHeld();
      const ids = await listEventIdsToProcess(pool, { afterId, limit: 500, statuses });
      for (const id of ids) {
        await processStoredEvent({ pool, boss, judgeAtEnd: values.all }, id).catch(() => {
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
    if (values.all) {
      // Released first: a worker would put back a judgement it fetched while the lock is held.
      await rebuildLock?.release();
      await judgeEverythingRebuilt(pool, boss);
      if (judgementsDue) await clearJudgementsDue(pool, judgementsDue);
    }
    const notReplayed = purged > 0 ? `, ${purged} not replayed (body purged)` : '';
    process.stdout.write(`reprocessed ${done} deliveries, ${failed} failed${notReplayed}\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    await rebuildLock?.release();
    await boss.stop({ graceful: false });
    await pool.end();
  }
}
