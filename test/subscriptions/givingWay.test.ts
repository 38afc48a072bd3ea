import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startForwarding } from '../../src/subscriptions/forwardChanges.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import { appendChanges, startReceiver } from './helpers.ts';

let t: TestApp;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver with a subscription, through HTTP, to the types these tests append. */
async function subscribedReceiver() {
  const receiver = await startReceiver();
  stops.push(() => receiver.close());
  await request(t.app)
    .post('/api/subscriptions')
    .set('Authorization', `Bearer ${API_TOKEN}`)
    .send({ url: receiver.url, types: ['payment.updated', 'refund.created'] })
    .expect(201);
  return receiver;
}

function forwardingBeside(backlog: { waiting: () => boolean }, waitAtMostMs: number, thenRunMs: number) {
  const stop = startForwarding({
    pool: t.pool,
    boss: t.boss,
    log: t.log,
    config: t.config,
    backlog: { noteBatch: () => undefined, waiting: backlog.waiting },
    giveWayTimes: { waitAtMostMs, thenRunMs },
  });
  stops.push(stop);
  return stop;
}

const loggedSince = (from: number) => t.logLines.slice(from).map((line) => JSON.parse(line));

describe('forwarding beside a projection with a backlog', () => {
  it('sends nothing while the backlog lasts, and every change once it is gone', async () => {
    let waiting = true;
    const receiver = await subscribedReceiver();
    forwardingBeside({ waiting: () => waiting }, 60_000, 1_000);
    await appendChanges(t.pool, [
      { type: 'payment.updated', object_id: 'py_gw_1', object_version: 1 },
      { type: 'payment.updated', object_id: 'py_gw_2', object_version: 1 },
    ]);
    await sleep(1_500);
    expect(receiver.received).toEqual([]);
    waiting = false;
    await waitFor('both changes', () => until(receiver.received.length === 2, `${receiver.received.length}`));
    expect(receiver.received.map((delivery) => JSON.parse(delivery.body).object_id).toSorted()).toEqual([
      'py_gw_1',
      'py_gw_2',
    ]);
    // What ops reads: when forwarding started waiting, and how long it waited once it resumed.
    const logged = t.logLines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 30,
        job: 'forward-changes',
        waitAtMostSeconds: 60,
        msg: 'forward-changes: the projection has a backlog; forwarding gives way to it',
      }),
    );
    const resumed = logged.find((entry) => entry.msg?.startsWith('forward-changes: forwarding resumes'));
    expect(resumed.msg).toBe('forward-changes: forwarding resumes: the projection has no backlog');
    expect(resumed.waitedSeconds).toBeGreaterThanOrEqual(1.5);
  });

  it('never stops for longer than it may wait at a stretch, however long the backlog lasts', async () => {
    const receiver = await subscribedReceiver();
    const started = Date.now();
    forwardingBeside({ waiting: () => true }, 1_500, 500);
    await appendChanges(t.pool, [{ type: 'refund.created', object_id: 're_gw_1', object_version: 1 }]);
    await waitFor('the change sent after the stretch', () =>
      until(receiver.received.length === 1, `${receiver.received.length}`),
    );
    expect((receiver.received[0]?.at ?? 0) - started).toBeGreaterThanOrEqual(1_500);
    await appendChanges(t.pool, [{ type: 'refund.created', object_id: 're_gw_2', object_version: 1 }]);
    await waitFor('the next change, a stretch later', () =>
      until(receiver.received.length === 2, `${receiver.received.length}`),
    );
  });

  it('says the wait ended because the worker stops, when it stops while giving way', async () => {
    const from = t.logLines.length;
    const stop = forwardingBeside({ waiting: () => true }, 60_000, 1_000);
    await waitFor('forwarding giving way', () =>
      until(
        loggedSince(from).some((entry) => entry.msg?.endsWith('forwarding gives way to it')),
        'not yet',
      ),
    );
    await stop();
    const resumed = loggedSince(from).filter((entry) =>
      entry.msg?.startsWith('forward-changes: forwarding resumes'),
    );
    expect(resumed.map((entry) => entry.msg)).toEqual([
      'forward-changes: forwarding resumes: the worker is stopping',
    ]);
  });
});
