import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import reconcileStale from '../../jobs/reconcile-stale.ts';
import { withTransaction } from '../../src/db/pool.ts';
import { REBUILD_LOCK } from '../../src/db/rebuildLock.ts';
import { claimEventsToProcess, resetProjections } from '../../src/projection/eventQueries.ts';
import { processNextEvents, processStoredEvent } from '../../src/projection/processStoredEvent.ts';
import { noteJudgementsDue, takeRebuildLock } from '../../src/projection/rebuild.ts';
import { enqueue } from '../../src/queue/enqueue.ts';
import { REBUILD_WAIT_SECONDS } from '../../src/queue/workers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// A rebuild keeps the worker's projection out of its way, and judges what it rebuilt once, at the end: a
// judgement between two replayed deliveries would weigh a state long past against today's clock.

let t: TestApp;
beforeAll(async () => {
  // No worker: these tests claim and project themselves.
  t = await startTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events cascade');
});

const delivery = (eventName: string, data: Record<string, unknown>) =>
  JSON.stringify(paymentEvent({ event_name: eventName, data }));
const payment = (id: string, status = 'succeeded', updatedAt = '2026-10-01T10:00:00Z') =>
  delivery('payment.created', { id, amount: 5000, currency: 'usd', status, updated_at: updatedAt });

// The sessions holding (or waiting for) the rebuild lock in this test's database: a bigint advisory key is
// kept in pg_locks as its high half (classid) and its low half (objid).
async function rebuildLockHolders(granted: boolean): Promise<number[]> {
  const { rows } = await t.pool.query(
    `select l.pid from pg_locks l, (select ${REBUILD_LOCK} as key) k
      where l.locktype = 'advisory' and l.granted = $1 and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())
        and l.classid::bigint = (k.key >> 32) & 4294967295 and l.objid::bigint = k.key & 4294967295`,
    [granted],
  );
  return rows.map((row) => row.pid);
}

describe('the rebuild lock', () => {
  it('keeps the worker from claiming any delivery while held; released, the next claim projects them', async () => {
    await deliver(t.app, [payment('py_held_1'), payment('py_held_2')]);
    const lock = await takeRebuildLock(t.pool);
    try {
      expect((await processNextEvents(t, 100)).claimed).toBe(0);
    } finally {
      await lock.release();
    }
    expect((await processNextEvents(t, 100)).claimed).toBe(2);
  });

  it('is taken only once the batch a worker is projecting has committed', async () => {
    await deliver(t.app, [payment('py_in_flight')]);
    const worker = await t.pool.connect();
    let taken = false;
    try {
      await worker.query('begin');
      expect(await claimEventsToProcess(worker, 100)).toHaveLength(1);
      const taking = takeRebuildLock(t.pool).then((lock) => {
        taken = true;
        return lock;
      });
      await waitFor('the rebuild to wait for the lock', async () => {
        const waiting = await rebuildLockHolders(false);
        until(waiting.length === 1, `waiting: ${waiting.length}`);
      });
      expect(taken).toBe(false);
      await worker.query('commit');
      await (await taking).release();
      expect(taken).toBe(true);
    } finally {
      worker.release();
    }
  });
  it('lets a second rebuild wait for the first, saying so once', async () => {
    const first = await takeRebuildLock(t.pool);
    let told = 0;
    const taking = takeRebuildLock(t.pool, () => (told += 1), 50);
    try {
      await waitFor('the second rebuild to say it waits', async () => until(told === 1, `told ${told}`));
      expect(await rebuildLockHolders(false)).toHaveLength(1);
    } finally {
      await first.release();
    }
    await (await taking).release();
    expect(told).toBe(1);
  });

  it('tells a rebuild that its connection, and with it the lock, has gone', async () => {
    const lock = await takeRebuildLock(t.pool);
    try {
      await lock.stillHeld();
      const holders = await rebuildLockHolders(true);
      expect(holders).toHaveLength(1);
      await t.pool.query('select pg_terminate_backend($1)', [holders[0]]);
      await waitFor('the lock to go with its connection', async () => {
        until((await rebuildLockHolders(true)).length === 0, 'still held');
      });
      await expect(lock.stillHeld()).rejects.toThrow(
        'the rebuild lost its lock (its database connection closed) and workers have resumed: run it again',
      );
      // Workers claim again at once.
      await deliver(t.app, [payment('py_after_lost_lock')]);
      expect((await processNextEvents(t, 100)).claimed).toBe(1);
    } finally {
      await lock.release();
    }
  });
});

describe('tally reprocess --all', () => {
  const judgementsOwed = async () =>
    (await t.pool.query(`select count(*)::int as owed from rebuild_judgements_due`)).rows[0].owed;
  const queuedSince = async (queue: string, since: Date, field: string, id: string) => {
    const jobs = await t.boss.findJobs(queue, { queued: true, limit: 100_000 });
    return jobs.filter((job) => {
      const value = (job.data as Record<string, unknown>)[field];
      return job.createdOn >= since && (Array.isArray(value) ? value.includes(id) : value === id);
    }).length;
  };

  it('queues each rebuilt payment and payout for judgement once, not once per delivery replayed', async () => {
    const payout = { id: 'po_judged', account_id: 'acc_sub_1', amount: 4850, currency: 'usd' };
    await deliver(t.app, [
      payment('py_judged', 'processing', '2026-10-01T10:00:00Z'),
      delivery('payment.updated', {
        id: 'py_judged',
        amount: 5000,
        currency: 'usd',
        status: 'succeeded',
        updated_at: '2026-10-01T10:05:00Z',
      }),
      delivery('payout.created', {
        ...payout,
        status: 'in_transit',
        created_at: '2026-10-02T00:00:00Z',
        updated_at: '2026-10-02T00:00:00Z',
        deposits_at: '2026-10-03T00:00:00Z',
      }),
      delivery('payout.paid', {
        ...payout,
        status: 'paid',
        created_at: '2026-10-02T00:00:00Z',
        updated_at: '2026-10-03T09:00:00Z',
        deposits_at: '2026-10-03T00:00:00Z',
      }),
    ]);
    const started = new Date();
    const result = await tallyInProcess(['reprocess', '--all'], { DATABASE_URL: t.databaseUrl });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('reprocessed 4 deliveries, 0 failed\n');
    expect(result.code).toBe(0);
    const rebuilt = await t.pool.query(`select status from payouts where id = 'po_judged'`);
    expect(rebuilt.rows).toEqual([{ status: 'paid' }]);
    // Replayed one by one, each delivery would have queued its own: two of each.
    expect(await queuedSince('reconcile-payments', started, 'payment_ids', 'py_judged')).toBe(1);
    expect(await queuedSince('reconcile-payouts', started, 'payout_ids', 'po_judged')).toBe(1);
    // Its lines were never fetched: the one sync a delivery of it would have queued.
    expect(await queuedSince('payout-sync', started, 'payout_id', 'po_judged')).toBe(1);
    // Nothing left for the worker to project: the rebuild projected everything while holding its lock.
    expect((await processNextEvents(t, 100)).claimed).toBe(0);
    expect(await judgementsOwed()).toBe(0);
  });

  it('notes what it owes until its end: reconcile-stale queues what a rebuild that stopped left', async () => {
    await deliver(t.app, [
      payment('py_owed'),
      delivery('payout.created', {
        id: 'po_owed',
        account_id: 'acc_sub_1',
        amount: 4850,
        currency: 'usd',
        status: 'in_transit',
        created_at: '2026-10-02T00:00:00Z',
        updated_at: '2026-10-02T00:00:00Z',
      }),
    ]);
    // What the rebuild does until it stops short of its judgements: reset, then replay.
    await withTransaction(t.pool, async (client) => {
      await resetProjections(client);
      await noteJudgementsDue(client);
    });
    const { rows } = await t.pool.query<{ id: string }>(`select id from events order by id`);
    for (const row of rows) await processStoredEvent({ ...t, judgeAtEnd: true }, Number(row.id));
    expect(await judgementsOwed()).toBe(1);
    const started = new Date();
    await reconcileStale.handle({}, t, 'reconcile-stale-test');
    expect(await queuedSince('reconcile-payments', started, 'payment_ids', 'py_owed')).toBe(1);
    expect(await queuedSince('reconcile-payouts', started, 'payout_ids', 'po_owed')).toBe(1);
    expect(await judgementsOwed()).toBe(0);
    expect(t.logLines.join('')).toContain('a rebuild stopped before judging what it rebuilt: queued ');
  });
});

describe('jobs fetched while a rebuild runs', () => {
  let w: TestApp;
  beforeAll(async () => {
    // The job runner of one queue, without the projection loop.
    w = await startTestApp({ worker: true, workerJobs: ['reconcile-payments'] });
  });
  afterAll(() => w.close());

  const jobOf = async (id: string) => (await w.boss.findJobs('reconcile-payments', { id }))[0];
  const finished = (id: string) =>
    waitFor(`job ${id} to finish`, async () => {
      const job = await jobOf(id);
      until(job?.state === 'completed', `state: ${job?.state}`);
      return job;
    });

  it('are put back with their payload, to run later, and run nothing meanwhile', async () => {
    const payload = { payment_ids: ['py_waits_for_rebuild'] };
    const lock = await takeRebuildLock(w.pool);
    let original: Awaited<ReturnType<typeof finished>>;
    try {
      const [id] = await enqueue(w.boss, 'reconcile-payments', [payload]);
      original = await finished(id as string);
    } finally {
      await lock.release();
    }
    expect(original?.output).toEqual({ put_back: 'rebuild running' });
    const copies = (await w.boss.findJobs('reconcile-payments', { queued: true })).filter(
      (job) => job.createdOn >= (original?.createdOn as Date),
    );
    expect(copies.map((job) => job.data)).toEqual([payload]);
    const delay = (copies[0]?.startAfter.getTime() as number) - Date.now();
    expect(delay).toBeGreaterThan((REBUILD_WAIT_SECONDS - 10) * 1000);
    expect(delay).toBeLessThanOrEqual(REBUILD_WAIT_SECONDS * 1000);
    expect(w.logLines.join('')).toContain(
      `reconcile-payments waits for the rebuild (tally reprocess --all): its fetched jobs are put back for ${REBUILD_WAIT_SECONDS} s`,
    );
    // Once the rebuild has ended, a job runs at once.
    const [after] = await enqueue(w.boss, 'reconcile-payments', [payload]);
    expect((await finished(after as string))?.output).not.toEqual({ put_back: 'rebuild running' });
  });
});
