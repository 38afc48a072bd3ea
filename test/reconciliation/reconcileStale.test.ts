import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordReconciledVersions } from '../../src/reconciliation/stateQueries.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain, waitForJobs } from '../helpers/fixtures.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };

const payment = (id: string, updatedAt: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify(
    paymentEvent({
      event_name: 'payment.succeeded',
      data: {
        id,
        amount: 10_000,
        currency: 'usd',
        status: 'succeeded',
        fee_amount: 320,
        fees: [{ id: `${id}_proc`, type: 'processing_fee', amount: 320, remaining_amount: 320 }],
        created_at: '2026-11-02T10:00:00Z',
        updated_at: updatedAt,
        ...fields,
      },
    }),
  );

async function status(t: TestApp) {
  const response = await request(t.app).get('/api/status').set(auth);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, unknown>;
}

async function reconciliationState(t: TestApp, paymentId: string) {
  const { rows } = await t.pool.query(
    `select projected_version, reconciled_version, unreconciled_since is null as reconciled
       from payment_reconciliation_states where payment_id = $1::text`,
    [paymentId],
  );
  return rows[0];
}

describe('a refund returning two fees the payment does not have', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ worker: true });
  });
  afterAll(() => t.close());

  it('is reconciled (it used to fail the run on two drafts of one key) into one finding listing both', async () => {
    const refund = paymentEvent({
      event_name: 'payment.refunded',
      data: {
        id: 're_two_unknown',
        payment_id: 'py_two_unknown',
        amount: 1000,
        status: 'succeeded',
        created_at: '2026-11-02T11:00:00Z',
        updated_at: '2026-11-02T11:00:00Z',
        returned_fees: [
          {
            id: 'rtfee_u1',
            payment_fee_id: 'pyfee_elsewhere_1',
            type: 'processing_fee',
            returned_amount: 32,
          },
          { id: 'rtfee_u2', payment_fee_id: 'pyfee_elsewhere_2', type: 'platform_fee', returned_amount: 5 },
        ],
      },
    });
    await deliver(t.app, [payment('py_two_unknown', '2026-11-02T10:00:00Z'), JSON.stringify(refund)]);
    await drain(t);
    await waitForJobs(t, ['reconcile-payments']);

    const failed = await t.boss.findJobs('reconcile-payments', { limit: 100 });
    expect(failed.filter((job) => job.state !== 'completed')).toEqual([]);
    const response = await request(t.app).get('/api/findings?subject_id=re_two_unknown').set(auth);
    expect(response.body.data).toHaveLength(1);
    expect(response.body.data[0]).toMatchObject({
      code: 'returned_fee_unknown',
      severity: 'error',
      status: 'open',
      subject_type: 'refund',
      subject_id: 're_two_unknown',
      account_id: 'acc_sub_1',
      currency: 'usd',
      expected: ['py_two_unknown_proc'],
      actual: ['pyfee_elsewhere_1', 'pyfee_elsewhere_2'],
      details: {
        payment_id: 'py_two_unknown',
        returned_fees: [
          { id: 'rtfee_u1', payment_fee_id: 'pyfee_elsewhere_1' },
          { id: 'rtfee_u2', payment_fee_id: 'pyfee_elsewhere_2' },
        ],
      },
    });
    expect(await reconciliationState(t, 'py_two_unknown')).toMatchObject({ reconciled: true });
  });
});

describe('reconciliation catches up by itself', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The projection runs; reconciliations are left queued until the test starts a worker for them.
    t = await startTestApp({ worker: true, workerJobs: ['process-event'] });
  });
  afterAll(() => t.close());

  it('a payment whose reconciliation was lost is counted, then reconciled on its newest state by reconcile-stale', async () => {
    await deliver(t.app, [payment('py_lost', '2026-11-02T10:00:00Z')]);
    await drain(t);
    expect(await reconciliationState(t, 'py_lost')).toEqual({
      projected_version: 1,
      reconciled_version: 0,
      reconciled: false,
    });
    // A newer state arrives; then the payment's queued reconciliation is lost, as with a worker killed
    // while holding it past its retries.
    await deliver(t.app, [
      payment('py_lost', '2026-11-02T10:05:00Z', { status: 'refunded', amount_refunded: 10_000 }),
    ]);
    await drain(t);
    await t.pool.query(`delete from pgboss.job where name = 'reconcile-payments'`);
    expect(await reconciliationState(t, 'py_lost')).toMatchObject({
      projected_version: 2,
      reconciled: false,
    });

    const lagging = await status(t);
    expect(lagging.unreconciled_payments).toBe(1);
    expect(lagging.oldest_unreconciled_s).toBeGreaterThanOrEqual(0);
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_unreconciled_payments 1');

    // Within the grace period its own job is presumed on the way: reconcile-stale leaves it.
    const { startWorkers } = await import('../../src/queue/workers.ts');
    await startWorkers(
      t,
      t.jobs.filter((job) => job.name === 'reconcile-stale' || job.name === 'reconcile-payments'),
    );
    const run = async () => {
      const response = await request(t.app).post('/api/jobs/reconcile-stale').set(auth).send({});
      expect(response.status).toBe(202);
      await waitForJobs(t, ['reconcile-stale', 'reconcile-payments']);
    };
    await run();
    expect(await reconciliationState(t, 'py_lost')).toMatchObject({ reconciled: false });

    // A minute later it is enqueued and reconciled on the newest state.
    await t.pool.query(
      `update payment_reconciliation_states set unreconciled_since = now() - interval '61 seconds'`,
    );
    expect((await status(t)).oldest_unreconciled_s).toBeGreaterThanOrEqual(61);
    await run();
    expect(await reconciliationState(t, 'py_lost')).toEqual({
      projected_version: 2,
      reconciled_version: 2,
      reconciled: true,
    });
    expect(await status(t)).toMatchObject({ unreconciled_payments: 0, oldest_unreconciled_s: null });
    expect((await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`)).text).toContain(
      'tally_oldest_unreconciled_seconds 0',
    );
    expect(t.logLines.join('')).toContain('"unreconciled":1,"queued":1');
  });

  it('a run that saw an older state moves the wait to after it: a payment that keeps changing is not ever more behind', async () => {
    await t.pool.query(
      `insert into payment_reconciliation_states (payment_id, projected_version, unreconciled_since)
       values ('py_busy', 5, now() - interval '1 hour')`,
    );
    expect(
      (await recordReconciledVersions(t.pool, [{ paymentId: 'py_busy', version: 4 }], new Date())).has(
        'py_busy',
      ),
    ).toBe(true);
    const { rows } = await t.pool.query(
      `select extract(epoch from now() - unreconciled_since)::int as waited from payment_reconciliation_states
        where payment_id = 'py_busy'`,
    );
    expect(rows[0].waited).toBeLessThan(60);
    await t.pool.query(`delete from payment_reconciliation_states where payment_id = 'py_busy'`);
  });

  it('a run overtaken by a newer one does not record its older state', async () => {
    await t.pool.query(
      `insert into payment_reconciliation_states (payment_id, projected_version, unreconciled_since)
       values ('py_raced', 3, now())`,
    );
    const now = new Date();
    expect(
      (await recordReconciledVersions(t.pool, [{ paymentId: 'py_raced', version: 2 }], now)).has('py_raced'),
    ).toBe(true);
    expect(await reconciliationState(t, 'py_raced')).toEqual({
      projected_version: 3,
      reconciled_version: 2,
      reconciled: false,
    });
    expect(
      (await recordReconciledVersions(t.pool, [{ paymentId: 'py_raced', version: 3 }], now)).has('py_raced'),
    ).toBe(true);
    expect(
      (await recordReconciledVersions(t.pool, [{ paymentId: 'py_raced', version: 2 }], now)).has('py_raced'),
    ).toBe(false);
    expect(await reconciliationState(t, 'py_raced')).toEqual({
      projected_version: 3,
      reconciled_version: 3,
      reconciled: true,
    });
  });
});
