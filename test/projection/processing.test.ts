import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain } from '../helpers/fixtures.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ worker: true });
});
afterAll(() => t.close());

const event = (eventName: string, data: Record<string, unknown>) =>
  JSON.stringify(paymentEvent({ event_name: eventName, data }));

// Waits for one delivery to leave `received`, whatever it ends as.
async function settled(eventId: string) {
  return waitFor(`${eventId} to leave received`, async () => {
    const { rows } = await t.pool.query(`select status, error from events where event_id = $1`, [eventId]);
    until(rows[0] !== undefined && rows[0].status !== 'received', `status ${rows[0]?.status ?? 'none'}`);
    return rows[0];
  });
}

describe('a delivery whose data cannot be processed', () => {
  it('is marked failed with the reason, retried with back-off, counted, and blocks nothing else', async () => {
    const bad = paymentEvent({
      data: { id: 'py_bad', amount: 'twelve', currency: 'usd', status: 'succeeded' },
    });
    const good = paymentEvent({
      data: { id: 'py_good', amount: 1200, currency: 'usd', status: 'succeeded' },
    });
    await deliver(t.app, [JSON.stringify(bad), JSON.stringify(good)]);

    expect(await settled(bad.id)).toEqual({
      status: 'failed',
      error: 'invalid data: amount: Invalid input: expected number, received string',
    });
    expect((await settled(good.id)).status).toBe('processed');
    // Tried again after 4 s, then 8, 16 and 32: five attempts in all before it stays failed.
    const { rows } = await t.pool.query(
      `select attempts, extract(epoch from retry_at - now()) as wait from events where event_id = $1`,
      [bad.id],
    );
    expect(rows[0].attempts).toBe(1);
    expect(Number(rows[0].wait)).toBeGreaterThan(2);
    expect(Number(rows[0].wait)).toBeLessThanOrEqual(4);

    const status = await request(t.app).get('/api/status').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(status.body.data.failed_events).toBe(1);
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_events{status="failed"} 1');
  });
});

describe('event names Tally does not project', () => {
  it('are stored, processed and counted, not rejected', async () => {
    const other = paymentEvent({ event_name: 'payment_intent.created', data: { id: 'pi_1' } });
    await deliver(t.app, [JSON.stringify(other)]);
    expect((await settled(other.id)).status).toBe('processed');
  });
});

describe('out of order pairs', () => {
  it('a refund before its payment is kept and joined once the payment arrives', async () => {
    const refund = {
      id: 're_early',
      payment_id: 'py_late',
      amount: 300,
      status: 'succeeded',
      updated_at: '2026-11-02T10:05:00Z',
    };
    await deliver(t.app, [event('payment.refunded', refund)]);
    await drain(t);
    expect((await t.pool.query(`select payment_id from refunds where id = 're_early'`)).rows).toEqual([
      { payment_id: 'py_late' },
    ]);
    await deliver(t.app, [
      event('payment.created', {
        id: 'py_late',
        amount: 1000,
        currency: 'usd',
        status: 'succeeded',
        updated_at: '2026-11-02T10:00:00Z',
      }),
    ]);
    await drain(t);
    const detail = await request(t.app)
      .get('/api/payments/py_late')
      .set('Authorization', `Bearer ${API_TOKEN}`);
    expect(detail.body.data.refunds.map((r: { id: string }) => r.id)).toEqual(['re_early']);
  });

  it('an older snapshot delivered last does not overwrite a newer one, and a terminal status never regresses', async () => {
    await deliver(t.app, [
      event('payment.succeeded', {
        id: 'py_order',
        amount: 700,
        currency: 'usd',
        status: 'succeeded',
        updated_at: '2026-11-02T10:02:00Z',
      }),
      event('payment.created', {
        id: 'py_order',
        amount: 650,
        currency: 'usd',
        status: 'pending',
        updated_at: '2026-11-02T10:00:00Z',
      }),
      // Newer by its clock but not terminal: its fields win, its status does not.
      event('payment.updated', {
        id: 'py_order',
        amount: 700,
        currency: 'usd',
        status: 'pending',
        description: 'late',
        updated_at: '2026-11-02T10:03:00Z',
      }),
    ]);
    await drain(t);
    const { rows } = await t.pool.query(
      `select amount, status, snapshot->>'description' as description from payments where id = 'py_order'`,
    );
    expect(rows).toEqual([{ amount: 700, status: 'succeeded', description: 'late' }]);
  });

  it('a forwarding request completed before created stays completed; a second, different outcome stays visible', async () => {
    const base = { id: 'fwd_c', payment_method_id: 'pm_x', url: 'https://dest.example.com/' };
    await deliver(t.app, [
      event('forwarding_request.completed', {
        ...base,
        status: 'completed',
        response: { status_code: 200 },
        updated_at: '2026-11-02T10:02:00Z',
      }),
      event('forwarding_request.created', { ...base, status: 'pending', updated_at: '2026-11-02T10:00:00Z' }),
      event('forwarding_request.failed', {
        ...base,
        status: 'failed',
        failure_reason: 'timeout',
        updated_at: '2026-11-02T10:03:00Z',
      }),
    ]);
    await drain(t);
    const outcomes = await t.pool.query(
      `select status, failure_reason, response_status_code from forwarding_outcomes where forwarding_request_id = 'fwd_c' order by status`,
    );
    expect(outcomes.rows).toEqual([
      { status: 'completed', failure_reason: null, response_status_code: 200 },
      { status: 'failed', failure_reason: 'timeout', response_status_code: null },
    ]);
    const request_ = await t.pool.query(`select status from forwarding_requests where id = 'fwd_c'`);
    expect(request_.rows[0].status).toBe('failed');
  });
});

describe('a batch of deliveries', () => {
  it('with one bad delivery in it fails that one alone; its neighbours are projected', async () => {
    const idle = await startTestApp();
    try {
      const good = [1, 2, 3].map((n) =>
        paymentEvent({
          data: { id: `py_batch_${n}`, amount: 100 * n, currency: 'usd', status: 'succeeded' },
        }),
      );
      const bad = paymentEvent({ data: { id: 'py_batch_bad', currency: 'usd', status: 'succeeded' } });
      await deliver(
        idle.app,
        [good[0], bad, good[1], good[2]].map((body) => JSON.stringify(body)),
      );
      const ids = (await idle.pool.query('select id from events order by id')).rows.map(
        (row) => row.id as number,
      );
      const { processStoredEvents } = await import('../../src/projection/processStoredEvent.ts');
      const failures = await processStoredEvents(idle, ids);
      expect([...failures.keys()]).toEqual([ids[1]]);
      const projected = await idle.pool.query('select id, amount from payments order by id');
      expect(projected.rows).toEqual([
        { id: 'py_batch_1', amount: 100 },
        { id: 'py_batch_2', amount: 200 },
        { id: 'py_batch_3', amount: 300 },
      ]);
    } finally {
      await idle.close();
    }
  });
});
