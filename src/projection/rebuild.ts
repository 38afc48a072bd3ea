import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { REBUILD_LOCK } from '../db/rebuildLock.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueueReconciliations } from '../queue/enqueueReconciliations.ts';
import { enqueueLineSyncs, enqueuePayoutReconciliations } from './payouts/payoutFollowUps.ts';

// What a rebuild (`tally reprocess --all`) needs beyond projecting each delivery: the workers kept out of
// the way (src/db/rebuildLock.ts), and one judgement of every object once it is rebuilt whole.

/**
 * Takes the rebuild lock on a connection of its own, after the batches workers are projecting have
 * committed; the returned function releases it (a second call does nothing). No worker claims a delivery
 * or runs a job while it is held, and a rebuild that dies releases it with its connection.
 */
export async function takeRebuildLock(pool: Pool): Promise<() => Promise<void>> {
  const client = await pool.connect();
  try {
    // A worker's batch may take its whole budget: waited for beyond the pool's statement timeout.
    await client.query('set statement_timeout = 0');
    await client.query(`select pg_advisory_lock(${REBUILD_LOCK})`);
  } catch (err) {
    client.release(true);
    throw err;
  }
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    await client.query(`select pg_advisory_unlock(${REBUILD_LOCK})`).catch(() => undefined);
    // Not returned to the pool with its statement timeout off.
    client.release(true);
  };
}

const PAGE = 5000;

async function idsAfter(db: Queryable, table: 'payments' | 'payouts', after: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from ${table} where id > $1 order by id limit ${PAGE}`,
    [after],
  );
  return rows.map((row) => row.id);
}

/** Calls `each` with every id of `table`, a page at a time, in id order. Returns how many there were. */
async function forEachPage(
  pool: Pool,
  table: 'payments' | 'payouts',
  each: (ids: string[]) => Promise<void>,
) {
  let count = 0;
  for (let after = ''; ; ) {
    const ids = await idsAfter(pool, table, after);
    if (ids.length === 0) return count;
    await each(ids);
    count += ids.length;
    after = ids.at(-1) as string;
  }
}

/**
 * Queues the judgement of every rebuilt payment and payout, and the line sync of every payout still missing
 * lines: what projecting each delivery would have queued, had the rebuild not held it back until the
 * projections were whole. Returns how many payments and payouts were queued.
 */
export async function judgeEverythingRebuilt(
  pool: Pool,
  boss: Boss,
): Promise<{ payments: number; payouts: number }> {
  const payments = await forEachPage(pool, 'payments', (ids) =>
    withTransaction(pool, async (client) => {
      await enqueueReconciliations({ boss, client }, ids);
    }),
  );
  const payouts = await forEachPage(pool, 'payouts', (ids) =>
    withTransaction(pool, async (client) => {
      await enqueueLineSyncs({ boss, client }, ids);
      await enqueuePayoutReconciliations({ boss, client }, ids, []);
    }),
  );
  return { payments, payouts };
}
