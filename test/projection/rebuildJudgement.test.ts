import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimEventsToProcess } from '../../src/projection/eventQueries.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { takeRebuildLock } from '../../src/projection/rebuild.ts';
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

describe('the rebuild lock', () => {
  it('keeps the worker from claiming any delivery while held; released, the next claim projects them', async () => {
    await deliver(t.app, [payment('py_held_1'), payment('py_held_2')]);
    const release = await takeRebuildLock(t.pool);
    try {
      expect((await processNextEvents(t, 100)).claimed).toBe(0);
    } finally {
      await release();
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
      const taking = takeRebuildLock(t.pool).then((release) => {
        taken = true;
        return release;
      });
      await waitFor('the rebuild to wait for the lock', async () => {
        const { rows } = await t.pool.query(
          `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`,
        );
        until(rows[0].waiting === 1, `waiting: ${rows[0].waiting}`);
      });
      expect(taken).toBe(false);
      await worker.query('commit');
      await (await taking)();
      expect(taken).toBe(true);
    } finally {
      worker.release();
    }
  });
});

describe('tally reprocess --all', () => {
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
  });
});
