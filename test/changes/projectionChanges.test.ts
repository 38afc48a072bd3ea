import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { recordFindings } from '../../src/findings/recordFindings.ts';
import { resetProjections } from '../../src/projection/eventQueries.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { type ChangeBody, readWholeFeed } from '../helpers/changes.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

let delivered = 0;
/** Stores deliveries through the webhook, then projects them all in one batch. */
async function deliverInOneBatch(...events: { event_name: string; data: Record<string, unknown> }[]) {
  const ids: string[] = [];
  for (const { event_name, data } of events) {
    delivered += 1;
    const event = paymentEvent({ id: `evt_chg_${delivered}`, event_name, data });
    expect((await postSigned(t.app, event)).status).toBe(200);
    ids.push(event.id);
  }
  const { claimed } = await processNextEvents(t, 500);
  expect(claimed).toBe(events.length);
  return ids;
}

const payment = (id: string, minute: number, fields: Record<string, unknown> = {}) => ({
  id,
  account_id: 'acc_sub_1',
  amount: 1234,
  currency: 'usd',
  status: 'pending',
  fees: [],
  created_at: at(0),
  updated_at: at(minute),
  ...fields,
});

async function changesOf(objectId: string): Promise<ChangeBody[]> {
  return (await readWholeFeed(t)).filter((change) => change.object_id === objectId);
}

async function paymentAsShown(id: string) {
  const response = await request(t.app).get(`/api/payments/${id}`).set(auth);
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('changes appended by the projection', () => {
  it('a new payment appends payment.created, a newer snapshot payment.updated, each with the payment as GET shows it', async () => {
    const [created] = await deliverInOneBatch({ event_name: 'payment.created', data: payment('py_c1', 0) });
    const first = await changesOf('py_c1');
    expect(first).toEqual([
      {
        id: expect.stringMatching(/^chg_\d+$/),
        seq: expect.any(Number),
        type: 'payment.created',
        object: 'payment',
        object_id: 'py_c1',
        object_version: 1,
        account_id: 'acc_sub_1',
        account_type: 'test',
        occurred_at: at(0),
        recorded_at: expect.any(String),
        event_ids: [created],
        data: await paymentAsShown('py_c1'),
      },
    ]);
    const [succeeded] = await deliverInOneBatch({
      event_name: 'payment.succeeded',
      data: payment('py_c1', 5, { status: 'succeeded' }),
    });
    const both = await changesOf('py_c1');
    expect(both.map(({ type, object_version, event_ids }) => ({ type, object_version, event_ids }))).toEqual([
      { type: 'payment.created', object_version: 1, event_ids: [created] },
      { type: 'payment.updated', object_version: 2, event_ids: [succeeded] },
    ]);
    expect(both[1]?.occurred_at).toBe(at(5));
    expect(both[1]?.data).toEqual(await paymentAsShown('py_c1'));
    expect(both[1]?.data.status).toBe('succeeded');
  });

  it('a duplicate delivery, an older snapshot and a rebuild to the same rows append nothing', async () => {
    const event = paymentEvent({
      id: 'evt_chg_dup',
      event_name: 'payment.created',
      data: payment('py_c2', 3),
    });
    await postSigned(t.app, event);
    await processNextEvents(t, 500);
    expect(await changesOf('py_c2')).toHaveLength(1);
    expect((await postSigned(t.app, event)).body.duplicate).toBe(true);
    await deliverInOneBatch({
      event_name: 'payment.created',
      data: payment('py_c2', 1, { amount: 999 }),
    });
    expect(await changesOf('py_c2')).toHaveLength(1);
    const before = await readWholeFeed(t);
    await withTransaction(t.pool, (client) => resetProjections(client));
    await t.pool.query(
      `update events set status = 'received', processed_at = null where status = 'processed'`,
    );
    while ((await processNextEvents(t, 500)).claimed > 0);
    expect(await readWholeFeed(t)).toEqual(before);
  });

  it('a batch writing one payment from three deliveries appends one change naming all three', async () => {
    const ids = await deliverInOneBatch(
      { event_name: 'payment.created', data: payment('py_c3', 0) },
      { event_name: 'payment.authorized', data: payment('py_c3', 1, { status: 'authorized' }) },
      { event_name: 'payment.succeeded', data: payment('py_c3', 2, { status: 'succeeded' }) },
    );
    const changes = await changesOf('py_c3');
    expect(changes).toHaveLength(1);
    expect(changes[0]?.type).toBe('payment.created');
    expect(changes[0]?.event_ids).toEqual([...ids].sort());
    expect(changes[0]?.occurred_at).toBe(at(2));
    expect(changes[0]?.data.status).toBe('succeeded');
  });

  it('a refund appends refund.created, and payment.updated when the payment row changed too', async () => {
    await deliverInOneBatch({
      event_name: 'payment.succeeded',
      data: payment('py_c4', 0, { status: 'succeeded' }),
    });
    const refund = { id: 're_c4', payment_id: 'py_c4', amount: 200, status: 'succeeded', created_at: at(6) };
    const [refunded] = await deliverInOneBatch({
      event_name: 'payment.refunded',
      data: payment('py_c4', 6, {
        status: 'succeeded',
        amount_refunded: 200,
        refunds: [{ ...refund, updated_at: at(6) }],
      }),
    });
    const changes = (await readWholeFeed(t)).filter((change) =>
      change.event_ids.includes(refunded as string),
    );
    expect(
      changes.map(({ type, object_id, object_version }) => ({ type, object_id, object_version })),
    ).toEqual([
      { type: 'payment.updated', object_id: 'py_c4', object_version: 2 },
      { type: 'refund.created', object_id: 're_c4', object_version: 1 },
    ]);
    const shown = await paymentAsShown('py_c4');
    expect(changes[0]?.data).toEqual(shown);
    expect(changes[1]?.data).toEqual(shown.refunds[0]);
    expect(changes[1]?.account_id).toBe('acc_sub_1');
    // A refund delivered on its own changes only the refund.
    const [updated] = await deliverInOneBatch({
      event_name: 'payment.refund.updated',
      data: { ...refund, status: 'failed', updated_at: at(8) },
    });
    const alone = (await readWholeFeed(t)).filter((change) => change.event_ids.includes(updated as string));
    expect(alone.map(({ type, object_version }) => ({ type, object_version }))).toEqual([
      { type: 'refund.updated', object_version: 2 },
    ]);
    expect(alone[0]?.data.status).toBe('failed');
  });

  it("a payment's findings show as GET /api/findings/:id shows each, whether about the payment or one of its refunds", async () => {
    await deliverInOneBatch({ event_name: 'payment.created', data: payment('py_c5', 0) });
    const draft = (subjectType: string, subjectId: string) => ({
      code: 'fee_total_mismatch' as const,
      severity: 'error' as const,
      subjectType,
      subjectId,
      expected: 71,
      actual: 70,
      details: { payment_id: 'py_c5' },
      atStake: 1,
    });
    const context = {
      scope: 'payment:py_c5',
      accountId: 'acc_sub_1',
      currency: 'usd',
      now: new Date('2026-11-03T09:00:00.123Z'),
    };
    await recordFindings(t.pool, context, [draft('payment', 'py_c5'), draft('refund', 're_c5')]);
    const shown = await paymentAsShown('py_c5');
    expect(shown.findings).toHaveLength(2);
    for (const finding of shown.findings) {
      const { history: _history, ...alone } = (
        await request(t.app).get(`/api/findings/${finding.id}`).set(auth)
      ).body.data;
      expect(finding).toEqual(alone);
    }
    expect(shown.findings[0].first_seen_at).toBe('2026-11-03T09:00:00.123Z');
  });
});
