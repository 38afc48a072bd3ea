import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { REBUILD_LOCK } from '../db/rebuildLock.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueueReconciliations } from '../queue/enqueueReconciliations.ts';
import { listUnreconciledPaymentsAfter } from '../reconciliation/stateQueries.ts';
import { enqueueLineSyncs, enqueuePayoutReconciliations } from './payouts/payoutFollowUps.ts';
import { listPayoutIdsAfter } from './payouts/payoutReadQueries.ts';

// What a rebuild (`tally reprocess --all`) needs beyond projecting each delivery: the workers kept out of
// the way (src/db/rebuildLock.ts), and one judgement of every object once it is rebuilt whole.

/** The rebuild lock, held on a connection of its own. */
export type RebuildLock = {
  /** Throws if the lock's connection has closed: the lock went with it, and workers have resumed. */
  stillHeld(): Promise<void>;
  /** Releases the lock; a second call does nothing. */
  release(): Promise<void>;
};

/** How long taking the lock may wait before `onWait` is told: a worker's batch usually commits sooner. */
export const LOCK_WAIT_NOTICE_MS = 2000;

/**
 * Takes the rebuild lock, after the batches workers are projecting have committed and after any other rebuild
 * has ended; `onWait` is called once if that takes longer than `noticeMs`. No worker claims a delivery, nor
 * starts a job, while it is held; a rebuild that dies releases it with its connection.
 */
export async function takeRebuildLock(
  pool: Pool,
  onWait: () => void = () => {},
  noticeMs = LOCK_WAIT_NOTICE_MS,
): Promise<RebuildLock> {
  const client = await pool.connect();
  const notice = setTimeout(onWait, noticeMs);
  try {
    // Another rebuild may take hours: waited for beyond the pool's statement timeout.
    await client.query('set statement_timeout = 0');
    await client.query(`select pg_advisory_lock(${REBUILD_LOCK})`);
  } catch (err) {
    client.release(true);
    throw err;
  } finally {
    clearTimeout(notice);
  }
  let held = true;
  return {
    async stillHeld() {
      // A session's advisory lock lasts as long as the session: a connection that answers still holds it.
      const alive = await client.query('select 1').then(
        () => true,
        () => false,
      );
      if (!alive)
        throw new Error(
          'the rebuild lost its lock (its database connection closed) and workers have resumed: run it again',
        );
    },
    async release() {
      if (!held) return;
      held = false;
      await client.query(`select pg_advisory_unlock(${REBUILD_LOCK})`).catch(() => undefined);
      // Not returned to the pool with its statement timeout off.
      client.release(true);
    },
  };
}

const PAGE = 5000;

type IdsAfter = (db: Queryable, afterId: string, limit: number) => Promise<string[]>;

/** Calls `each` with every id `idsAfter` lists, a page at a time, in id order. Returns how many there were. */
async function forEachPage(pool: Pool, idsAfter: IdsAfter, each: (ids: string[]) => Promise<void>) {
  let count = 0;
  for (let after = ''; ; ) {
    const ids = await idsAfter(pool, after, PAGE);
    if (ids.length === 0) return count;
    await each(ids);
    count += ids.length;
    after = ids.at(-1) as string;
  }
}

/**
 * Queues the judgement of every payment the replay left unreconciled (each it touched, a disputed payment
 * none of whose own deliveries is kept too) and of every payout, and the line sync of every payout still
 * missing lines. Returns how many payments and payouts were queued.
 */
export async function judgeEverythingRebuilt(
  pool: Pool,
  boss: Boss,
): Promise<{ payments: number; payouts: number }> {
  const payments = await forEachPage(pool, listUnreconciledPaymentsAfter, (ids) =>
    withTransaction(pool, async (client) => {
      await enqueueReconciliations({ boss, client }, ids);
    }),
  );
  const payouts = await forEachPage(pool, listPayoutIdsAfter, (ids) =>
    withTransaction(pool, async (client) => {
      await enqueueLineSyncs({ boss, client }, ids);
      await enqueuePayoutReconciliations({ boss, client }, ids, []);
    }),
  );
  return { payments, payouts };
}

// A rebuild owes the judgement of what it rebuilt from its reset until it has queued them all; a note of the
// debt, written with the reset, outlives a rebuild that stops (migrations/0035).

/**
 * Notes, in the reset's transaction, that this rebuild owes its judgements. Returns the note's key, as text:
 * a JavaScript date would drop its microseconds.
 */
export async function noteJudgementsDue(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ started_at: string }>(
    `insert into rebuild_judgements_due (rebuild_started_at) values (now())
     returning rebuild_started_at::text as started_at`,
  );
  return rows[0]?.started_at as string;
}

/** Clears the notes of the rebuilds started up to `startedAt`: every judgement they owed is queued. */
export async function clearJudgementsDue(db: Queryable, startedAt: string): Promise<void> {
  await db.query(`delete from rebuild_judgements_due where rebuild_started_at <= $1::timestamptz`, [
    startedAt,
  ]);
}

/**
 * Queues what a rebuild that stopped before its end still owed (`judgeEverythingRebuilt`), if one did, and
 * clears its note. Returns what was queued, or null when nothing was owed.
 */
export async function judgeWhatAStoppedRebuildLeft(
  pool: Pool,
  boss: Boss,
): Promise<{ payments: number; payouts: number } | null> {
  const { rows } = await pool.query<{ started_at: string | null }>(
    `select max(rebuild_started_at)::text as started_at from rebuild_judgements_due`,
  );
  const startedAt = rows[0]?.started_at;
  if (!startedAt) return null;
  const queued = await judgeEverythingRebuilt(pool, boss);
  await clearJudgementsDue(pool, startedAt);
  return queued;
}
