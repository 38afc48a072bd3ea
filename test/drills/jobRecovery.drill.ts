import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.ts';
import { createQueues } from '../../src/queue/job.ts';
import { queueNames, queues } from '../../src/queue/queues.ts';
import { startWorkers } from '../../src/queue/workers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain, waitForJobs } from '../helpers/fixtures.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  await waitFor(what, async () => until(await check(), 'not yet'), { timeoutMs, intervalMs: 200 });
}

describe('every queue has a bounded recovery', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ worker: true, workerJobs: ['process-event'] });
  });
  afterAll(() => t.close());

  it('each queue is created with a 20 s heartbeat and its own expiry; an older queue is brought up to date, a retired one deleted', async () => {
    await t.boss.updateQueue('send-alert', { heartbeatSeconds: null, expireInSeconds: 900 });
    // One job per payment, as an earlier version queued them; reconcile-stale finds such a payment instead.
    await t.boss.createQueue('reconcile-payment', { policy: 'stately' });
    await t.boss.send('reconcile-payment', { payment_id: 'py_1' }, { singletonKey: 'py_1' });
    await createQueues(t.boss, jobs);
    expect((await t.boss.getQueues()).map((queue) => queue.name)).not.toContain('reconcile-payment');
    const { rows } = await t.pool.query(
      `select count(*)::int as n from pgboss.job where name = 'reconcile-payment'`,
    );
    expect(rows[0].n).toBe(0);
    for (const name of queueNames) {
      const queue = await t.boss.getQueue(name);
      expect({
        name,
        heartbeatSeconds: queue?.heartbeatSeconds,
        expireInSeconds: queue?.expireInSeconds,
      }).toEqual({ name, heartbeatSeconds: 20, expireInSeconds: queues[name].queue.expireInSeconds });
      // The bound holds only if a stuck handler is also bounded, and never below the heartbeat.
      expect(queues[name].queue.expireInSeconds).toBeGreaterThanOrEqual(60);
    }
  });

  it("a reconciliation held by a worker that died is retried within a minute (20 s heartbeat, 10 s supervise pass), and the payment's newer one is not held up by it", async () => {
    const payment = (updatedAt: string, status: string) =>
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.updated',
          data: { id: 'py_held', amount: 1000, currency: 'usd', status, updated_at: updatedAt },
        }),
      );
    await deliver(t.app, [payment('2026-11-02T10:00:00Z', 'pending')]);
    await drain(t);
    // A worker takes the job and dies: no heartbeat, never settled.
    const [held] = await t.boss.fetch('reconcile-payments');
    expect(held?.data).toEqual({ payment_ids: ['py_held'] });
    const heldAt = Date.now();
    await deliver(t.app, [payment('2026-11-02T10:05:00Z', 'succeeded')]);
    await drain(t);
    await startWorkers(
      t,
      t.jobs.filter((job) => job.name === 'reconcile-payments'),
    );

    await waitUntil(
      async () => {
        const { rows } = await t.pool.query(
          `select projected_version = 2 and reconciled_version = 2 as newest
             from payment_reconciliation_states where payment_id = 'py_held'`,
        );
        return rows[0]?.newest === true;
      },
      10_000,
      'the payment to be reconciled on its newest state',
    );
    // The dead worker's job itself is retried and completes: nothing fails, nothing stays behind.
    await waitForJobs(t, ['reconcile-payments'], 60_000);
    expect(Date.now() - heldAt).toBeLessThan(60_000);
    const job = await t.boss.getJobById('reconcile-payments', held?.id as string);
    expect(job).toMatchObject({ state: 'completed', retryCount: 1 });
  }, 90_000);
});

describe('failed jobs are visible', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ worker: true });
  });
  afterAll(() => t.close());

  it('a job failed for good is counted per queue in GET /api/status and /metrics, and its log line names queue, subject and error', async () => {
    // Sent around the registry's schema on purpose, with no retries: it can only fail, at once.
    await t.boss.send('reconcile-payments', { payment_ids: 42 }, { retryLimit: 0 });
    let failedJobs: Record<string, number> = {};
    await waitUntil(
      async () => {
        const response = await request(t.app).get('/api/status').set(auth);
        failedJobs = response.body.data.failed_jobs;
        return failedJobs['reconcile-payments'] === 1;
      },
      30_000,
      'pg-boss to count the failed job',
    );
    expect(failedJobs).toEqual(
      Object.fromEntries(queueNames.map((name) => [name, name === 'reconcile-payments' ? 1 : 0])),
    );
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_failed_jobs{queue="reconcile-payments"} 1');
    expect(metrics.text).toContain('tally_failed_jobs{queue="send-alert"} 0');

    const line = t.logLines
      .map((entry) => JSON.parse(entry))
      .find((entry) => entry.queue === 'reconcile-payments');
    expect(line).toMatchObject({
      level: 50,
      queue: 'reconcile-payments',
      subject: 'payment_ids=42',
      attempt: 1,
      final: true,
      msg: 'reconcile-payments payment_ids=42 failed for good (attempt 1 of 1): Error: payload invalid: payment_ids: Invalid input: expected array, received number',
    });
  }, 60_000);
});
