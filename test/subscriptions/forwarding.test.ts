import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeChangeCursor } from '../../src/changes/changeCursor.ts';
import { pruneAttempts } from '../../src/subscriptions/attemptQueries.ts';
import { startForwarding } from '../../src/subscriptions/forwardChanges.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import { appendChanges, type Received, startReceiver, verifyDelivery } from './helpers.ts';

let t: TestApp;
let stop: () => Promise<void>;
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
beforeAll(async () => {
  t = await startTestApp();
  stop = startForwarding({ pool: t.pool, boss: t.boss, log: t.log, config: t.config });
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  await stop();
  await t.close();
});

const admin = { authorization: `Bearer ${API_TOKEN}` };
async function receiverWithSubscription(types: string[], answer?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(answer);
  receivers.push(receiver);
  const { body } = await request(t.app)
    .post('/api/subscriptions')
    .set(admin)
    .send({ url: receiver.url, types })
    .expect(201);
  return {
    receiver,
    id: body.data.id as string,
    secret: body.data.secret as string,
    row: Number(body.data.id.slice(4)),
  };
}
const parsed = (delivery: Received) => JSON.parse(delivery.body);
const waitForCount = (receiver: { received: Received[] }, count: number, timeoutMs = 15_000) =>
  waitFor(
    `${count} deliveries`,
    () => until(receiver.received.length >= count, `${receiver.received.length}`),
    {
      timeoutMs,
    },
  );
// Makes every waiting retry of a subscription due now, as if its wait had passed.
const dueNow = (row: number) =>
  t.pool.query(`update subscription_deliveries set next_attempt_at = now() where subscription_id = $1`, [
    row,
  ]);

describe('forwarding', () => {
  it('posts each change of its types once, as the change JSON, signed, with the change id as webhook-id', async () => {
    const { receiver, secret } = await receiverWithSubscription(['payment.*', 'refund.created']);
    await appendChanges(t.pool, [
      { type: 'payment.created', object_id: 'py_a', object_version: 1 },
      { type: 'dispute.created', object_id: 'dp_a', object_version: 1 },
      { type: 'refund.created', object_id: 're_a', object_version: 1 },
      { type: 'refund.updated', object_id: 're_a', object_version: 2 },
      { type: 'payment.updated', object_id: 'py_a', object_version: 2 },
    ]);
    await waitForCount(receiver, 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.map((delivery) => parsed(delivery).type).toSorted()).toEqual([
      'payment.created',
      'payment.updated',
      'refund.created',
    ]);
    const first = receiver.received.find(
      (delivery) => parsed(delivery).type === 'payment.created',
    ) as Received;
    const change = parsed(first);
    expect(first.headers['webhook-id']).toBe(change.id);
    expect(first.headers['content-type']).toBe('application/json');
    expect(change).toEqual({
      id: `chg_${change.seq}`,
      seq: expect.any(Number),
      type: 'payment.created',
      object: 'payment',
      object_id: 'py_a',
      object_version: 1,
      account_id: 'acc_1',
      account_type: 'test',
      occurred_at: expect.any(String),
      recorded_at: expect.any(String),
      event_ids: ['evt_py_a_1'],
      data: { id: 'py_a', version: 1 },
    });
    for (const delivery of receiver.received)
      expect(verifyDelivery(secret, delivery)).toEqual(parsed(delivery));
    expect(Math.abs(Number(first.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  });

  it('holds an object’s next change while an earlier one is retried, and sends other objects meanwhile', async () => {
    let failFirst = true;
    const { receiver, row, id } = await receiverWithSubscription(['payment.*'], (_req, res, body) => {
      const change = JSON.parse(body);
      if (change.object_id === 'py_slow' && change.object_version === 1 && failFirst) {
        res.statusCode = 503;
        return res.end();
      }
      res.end();
    });
    await appendChanges(t.pool, [
      { type: 'payment.created', object_id: 'py_slow', object_version: 1 },
      { type: 'payment.updated', object_id: 'py_slow', object_version: 2 },
      { type: 'payment.created', object_id: 'py_fast', object_version: 1 },
      { type: 'payment.updated', object_id: 'py_fast', object_version: 2 },
    ]);
    await waitForCount(receiver, 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      receiver.received.map((delivery) => `${parsed(delivery).object_id}@${parsed(delivery).object_version}`),
    ).toEqual(expect.arrayContaining(['py_slow@1', 'py_fast@1', 'py_fast@2']));
    expect(receiver.received).toHaveLength(3);
    const { rows } = await t.pool.query(
      `select attempts, status, extract(epoch from next_attempt_at - first_attempt_at)::int as wait
         from subscription_deliveries where subscription_id = $1 order by seq`,
      [row],
    );
    expect(rows).toEqual([
      { attempts: 1, status: 'pending', wait: 5 },
      { attempts: 0, status: 'pending', wait: null },
    ]);
    const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
    // Other objects were delivered since the failure: the subscription is not failing, one change is retried.
    expect(detail.body.data).toMatchObject({
      state: 'active',
      pending: 2,
      attempts: { delivered: 2, http_error: 1 },
    });
    expect(detail.body.data.recent_attempts[0]).toMatchObject({
      outcome: 'delivered',
      status_code: 200,
      error: null,
    });
    expect(detail.body.data.recent_attempts.map((attempt: { outcome: string }) => attempt.outcome)).toContain(
      'http_error',
    );
    const failure = detail.body.data.recent_attempts.find(
      (attempt: { outcome: string }) => attempt.outcome === 'http_error',
    );
    expect(failure).toMatchObject({ status_code: 503, error: 'answered 503' });
    expect(detail.body.data.lag_seconds).toBeGreaterThan(0);

    failFirst = false;
    await dueNow(row);
    await waitForCount(receiver, 5);
    const slow = receiver.received.filter((delivery) => parsed(delivery).object_id === 'py_slow').map(parsed);
    expect(slow.map((change) => change.object_version)).toEqual([1, 1, 2]);
    // The retry is the same change under the same id.
    expect(slow[0].id).toBe(slow[1].id);
    const after = await waitFor('the deliveries to be recorded', async () => {
      const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
      until(detail.body.data.pending === 0, `pending ${detail.body.data.pending}`);
      return detail;
    });
    expect(after.body.data).toMatchObject({
      state: 'active',
      pending: 0,
      lag_seconds: 0,
      failing_since: null,
    });
  });

  it('waits 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then 2 h between attempts, and gives up after 3 days', async () => {
    const { receiver, row, id } = await receiverWithSubscription(['payout.*'], (_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    await appendChanges(t.pool, [{ type: 'payout.created', object_id: 'po_1', object_version: 1 }]);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      await waitForCount(receiver, attempt);
      const next = await waitFor('the attempt to be recorded', async () => {
        const { rows } = await t.pool.query(
          `select attempts, extract(epoch from next_attempt_at - (select max(attempted_at) from subscription_attempts
                                                                    where subscription_id = $1))::int as wait
             from subscription_deliveries where subscription_id = $1`,
          [row],
        );
        until(rows[0]?.attempts === attempt, `attempts ${rows[0]?.attempts}`);
        return rows[0].wait as number;
      });
      waits.push(next);
      // The ninth attempt is made due below, with the 3 days passed: one made before would still be in time.
      if (attempt < 8) await dueNow(row);
    }
    expect(waits).toEqual([5, 30, 120, 600, 1800, 3600, 7200, 7200]);
    // A delivery in between keeps the subscription from being disabled; the change alone is given up on.
    await t.pool.query(`update subscriptions set failing_since = null where id = $1`, [row]);
    await t.pool.query(
      `update subscription_deliveries set first_attempt_at = now() - interval '3 days', next_attempt_at = now()
        where subscription_id = $1`,
      [row],
    );
    await waitForCount(receiver, 9);
    const failed = await waitFor('the change to be given up on', async () => {
      const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
      until(detail.body.data.failed === 1, `failed ${detail.body.data.failed}`);
      return detail.body.data;
    });
    expect(failed).toMatchObject({ enabled: true, pending: 0, lag_seconds: 0 });
    expect(failed.failed_changes).toEqual([
      {
        change_id: expect.stringMatching(/^chg_\d+$/),
        object: 'payout',
        object_id: 'po_1',
        attempts: 9,
        first_attempt_at: expect.any(String),
      },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(9);
  });

  it('disables a subscription whose every attempt failed for 3 days, with an ops alert; enabling resumes it', async () => {
    let up = false;
    const { receiver, row, id } = await receiverWithSubscription(['checkout.*'], (_req, res) => {
      res.statusCode = up ? 204 : 502;
      res.end();
    });
    await appendChanges(t.pool, [
      { type: 'checkout.created', object_id: 'cho_1', object_version: 1 },
      { type: 'checkout.updated', object_id: 'cho_1', object_version: 2 },
    ]);
    await waitForCount(receiver, 1);
    await waitFor('the failure to be recorded', async () => {
      const { rows } = await t.pool.query('select failing_since from subscriptions where id = $1', [row]);
      until(rows[0].failing_since !== null, 'not failing yet');
    });
    const failing = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
    expect(failing.body.data).toMatchObject({ state: 'failing', enabled: true });
    // Three days of failed attempts later:
    await t.pool.query(`update subscriptions set failing_since = now() - interval '3 days' where id = $1`, [
      row,
    ]);
    await t.pool.query(
      `update subscription_deliveries set first_attempt_at = now() - interval '3 days' where subscription_id = $1`,
      [row],
    );
    await dueNow(row);
    const disabled = await waitFor('the subscription to be disabled', async () => {
      const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
      until(detail.body.data.enabled === false, 'still enabled');
      return detail.body.data;
    });
    // Its changes wait rather than fail, and its lag keeps growing.
    expect(disabled).toMatchObject({ state: 'disabled', disabled_reason: 'failing', pending: 2, failed: 0 });
    expect(disabled.lag_seconds).toBeGreaterThan(0);
    const { rows: alerts } = await t.pool.query(
      `select kind, subject_id, payload from alerts where kind = 'subscription_disabled' and subject_id = $1`,
      [id],
    );
    expect(alerts).toEqual([
      {
        kind: 'subscription_disabled',
        subject_id: id,
        payload: expect.objectContaining({
          subscription_id: id,
          url: receiver.url,
          console_path: `/console/subscriptions/${id}`,
        }),
      },
    ]);
    await dueNow(row);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const whileDisabled = receiver.received.length;
    expect(whileDisabled).toBe(2);
    const later = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
    expect(later.body.data.lag_seconds).toBeGreaterThan(disabled.lag_seconds);

    up = true;
    await request(t.app).patch(`/api/subscriptions/${id}`).set(admin).send({ enabled: true }).expect(200);
    await waitForCount(receiver, whileDisabled + 2);
    expect(receiver.received.slice(whileDisabled).map((delivery) => parsed(delivery).object_version)).toEqual(
      [1, 2],
    );
    const resumed = await waitFor('the subscription to catch up', async () => {
      const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
      until(detail.body.data.pending === 0, `pending ${detail.body.data.pending}`);
      return detail.body.data;
    });
    expect(resumed).toMatchObject({ state: 'active', enabled: true, lag_seconds: 0, failing_since: null });
  });

  it('signs with the new and the old secret for 24 h after a rotation, the new one first', async () => {
    const { receiver, id, secret: old } = await receiverWithSubscription(['forwarding_request.*']);
    const rotated = await request(t.app)
      .post(`/api/subscriptions/${id}/rotate-secret`)
      .set(admin)
      .expect(200);
    const fresh = rotated.body.data.secret as string;
    await appendChanges(t.pool, [
      { type: 'forwarding_request.created', object_id: 'fr_1', object_version: 1 },
    ]);
    await waitForCount(receiver, 1);
    const [delivery] = receiver.received as [Received];
    const signatures = String(delivery.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(
      verifyDelivery(fresh, {
        ...delivery,
        headers: { ...delivery.headers, 'webhook-signature': signatures[0] },
      }),
    ).toBeTruthy();
    expect(
      verifyDelivery(old, {
        ...delivery,
        headers: { ...delivery.headers, 'webhook-signature': signatures[1] },
      }),
    ).toBeTruthy();
    // Past the overlap only the new secret signs.
    await t.pool.query(`update subscriptions set previous_secret_until = now() where id = $1`, [
      Number(id.slice(4)),
    ]);
    await appendChanges(t.pool, [
      { type: 'forwarding_request.updated', object_id: 'fr_1', object_version: 2 },
    ]);
    await waitForCount(receiver, 2);
    const second = receiver.received[1] as Received;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyDelivery(fresh, second)).toBeTruthy();
    expect(() => verifyDelivery(old, second)).toThrow();
  });

  it('replay sends the subscription’s changes after a cursor again, of its types, under the same ids', async () => {
    const { receiver, id } = await receiverWithSubscription(['finding.*']);
    await appendChanges(t.pool, [
      { type: 'finding.opened', object_id: 'fnd_1', object_version: 1 },
      { type: 'payment.created', object_id: 'py_replay', object_version: 1 },
      { type: 'finding.resolved', object_id: 'fnd_1', object_version: 2 },
      { type: 'finding.opened', object_id: 'fnd_2', object_version: 1 },
    ]);
    await waitForCount(receiver, 3);
    const first = receiver.received.map(parsed);
    const opened = first.find((change) => change.object_id === 'fnd_1' && change.object_version === 1);
    const cursor = encodeChangeCursor(opened.seq);
    const replay = await request(t.app)
      .post(`/api/subscriptions/${id}/replay`)
      .set(admin)
      .send({ after: cursor })
      .expect(200);
    expect(replay.body.data).toEqual({ subscription_id: id, queued: 2 });
    await waitForCount(receiver, 5);
    const again = receiver.received.slice(3).map(parsed);
    expect(again.map((change) => change.id).toSorted()).toEqual(
      first
        .filter((change) => change.seq > opened.seq)
        .map((change) => change.id)
        .toSorted(),
    );
    expect(
      receiver.received
        .slice(3)
        .map((delivery) => delivery.headers['webhook-id'])
        .toSorted(),
    ).toEqual(again.map((change) => change.id).toSorted());
    await waitFor('the replayed changes to be recorded', async () => {
      const detail = await request(t.app).get(`/api/subscriptions/${id}`).set(admin).expect(200);
      until(detail.body.data.pending === 0, `pending ${detail.body.data.pending}`);
    });
    const all = await request(t.app).post(`/api/subscriptions/${id}/replay`).set(admin).send({}).expect(200);
    expect(all.body.data.queued).toBe(3);
    await waitForCount(receiver, 8);
    expect(receiver.received.map(parsed).every((change) => change.object === 'finding')).toBe(true);
  });

  it('sends other objects while a receiver stalls on one, and cuts the stalled attempt at 10 s', async () => {
    const { receiver, row } = await receiverWithSubscription(['dispute.*'], (_req, res, body) => {
      if (JSON.parse(body).object_id === 'dp_stall') return; // never answers
      res.end();
    });
    await appendChanges(t.pool, [
      { type: 'dispute.created', object_id: 'dp_stall', object_version: 1 },
      ...Array.from({ length: 20 }, (_, index) => ({
        type: 'dispute.created',
        object_id: `dp_${index}`,
        object_version: 1,
      })),
    ]);
    await waitForCount(receiver, 21, 5_000);
    const attempt = await waitFor(
      'the stalled attempt to be cut off',
      async () => {
        const { rows } = await t.pool.query(
          `select outcome, duration_ms, error from subscription_attempts where subscription_id = $1 and outcome <> 'delivered'`,
          [row],
        );
        until(rows.length === 1, 'not yet');
        return rows[0];
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(attempt).toMatchObject({ outcome: 'timeout', error: 'no answer within 10 s' });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(attempt.duration_ms).toBeLessThan(11_000);
  });

  it('reports each subscription’s lag and attempts by outcome in /api/status and /metrics', async () => {
    let fail = true;
    const { receiver, id, row } = await receiverWithSubscription(['payment.*'], (_req, res) => {
      res.statusCode = fail ? 500 : 200;
      res.end();
    });
    await appendChanges(t.pool, [
      {
        type: 'payment.created',
        object_id: 'py_lag',
        object_version: 1,
        recorded_at: new Date(Date.now() - 90_000),
      },
    ]);
    await waitForCount(receiver, 1);
    const status = await waitFor('the failure in /api/status', async () => {
      const answer = await request(t.app).get('/api/status').set(admin).expect(200);
      const entry = answer.body.data.subscriptions.find((item: { id: string }) => item.id === id);
      until(entry?.attempts.http_error === 1, 'not yet');
      return entry;
    });
    expect(status).toEqual({
      id,
      enabled: true,
      lag_seconds: expect.any(Number),
      pending: 1,
      failed: 0,
      attempts: { http_error: 1 },
    });
    expect(status.lag_seconds).toBeGreaterThanOrEqual(90);
    expect(status.lag_seconds).toBeLessThan(150);
    const metrics = (await request(t.app).get('/metrics').set(admin).expect(200)).text;
    const lag = Number(
      new RegExp(`^tally_subscription_lag_seconds\\{subscription="${id}"\\} (\\S+)$`, 'm').exec(metrics)?.[1],
    );
    expect(lag).toBeGreaterThanOrEqual(90);
    expect(metrics).toContain(
      `tally_subscription_attempts_total{subscription="${id}",outcome="http_error"} 1\n`,
    );
    expect(metrics).toContain(`tally_subscription_enabled{subscription="${id}"} 1\n`);

    fail = false;
    await dueNow(row);
    await waitForCount(receiver, 2);
    const caughtUp = await waitFor('the delivery in /api/status', async () => {
      const answer = await request(t.app).get('/api/status').set(admin).expect(200);
      const entry = answer.body.data.subscriptions.find((item: { id: string }) => item.id === id);
      until(entry?.pending === 0, 'not yet');
      return entry;
    });
    expect(caughtUp).toMatchObject({ lag_seconds: 0, attempts: { http_error: 1, delivered: 1 } });
  });

  it('keeps the newest 1000 attempts of each subscription', async () => {
    const { row } = await receiverWithSubscription(['payout.*']);
    await t.pool.query(
      `insert into subscription_attempts (subscription_id, seq, attempted_at, outcome, duration_ms)
       select $1, n, now(), 'delivered', 1 from generate_series(1, 1500) n`,
      [row],
    );
    await pruneAttempts(t.pool);
    const { rows } = await t.pool.query(
      'select count(*)::int as kept, min(seq)::int as oldest from subscription_attempts where subscription_id = $1',
      [row],
    );
    expect(rows[0]).toEqual({ kept: 1000, oldest: 501 });
  });
});
