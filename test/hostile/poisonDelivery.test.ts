import request from 'supertest';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { TOO_DEEP } from '../../src/domain/cardNumbers.ts';
import { PROCESSING_DEFAULTS, startEventProcessing } from '../../src/projection/processingLoop.ts';
import { BATCH_BUDGET_MS } from '../../src/projection/processStoredEvent.ts';
import { insertApiSnapshots } from '../../src/sweep/queries.ts';
import { signIn } from '../console/signIn.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

// A delivery built to stall the worker must not: it is acknowledged, processed (or failed with its reason)
// within the batch budget, the deliveries behind it are processed, and a restarted process comes up ready.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const processDeliveries = (app: TestApp) =>
  startEventProcessing(
    { pool: app.pool, boss: app.boss, log: app.log },
    { ...PROCESSING_DEFAULTS, idleMilliseconds: 50 },
  );

const statusOf = async (eventId: string) =>
  (
    await t.pool.query<{ status: string; error: string | null; seconds: number }>(
      `select status, error, extract(epoch from processed_at - received_at)::float8 as seconds
         from events where event_id = $1`,
      [eventId],
    )
  ).rows[0];

async function waitUntilNoneWaits(timeout: number) {
  await vi.waitFor(
    async () => {
      const { rows } = await t.pool.query(`select count(*)::int as n from events where status = 'received'`);
      expect(rows[0].n).toBe(0);
    },
    { timeout, interval: 100 },
  );
}

// 20,000 groups of four digits, 100 KB: some stretches of four groups pass Luhn, as card numbers do.
const DIGIT_GROUPS = Array.from({ length: 20_000 }, (_, index) =>
  String(1000 + ((index * 7919) % 9000)),
).join(' ');

it('a payment.created with 20,000 digit groups is processed within the budget while ordinary webhooks flow', async () => {
  const stopProcessing = processDeliveries(t);
  const poison = paymentEvent({
    data: {
      id: 'py_poison',
      amount: 100,
      currency: 'usd',
      status: 'succeeded',
      description: DIGIT_GROUPS,
      metadata: { note: DIGIT_GROUPS },
    },
  });
  const ordinary = Array.from({ length: 30 }, () => paymentEvent());
  const acknowledgements: number[] = [];
  const send = async (event: object) => {
    const started = performance.now();
    const response = await postSigned(t.app, event);
    acknowledgements.push(performance.now() - started);
    expect(response.status).toBe(200);
  };
  try {
    const sender = (async () => {
      for (const event of ordinary) await send(event);
    })();
    await send(poison);
    await sender;
    await waitUntilNoneWaits(BATCH_BUDGET_MS + 5_000);
  } finally {
    await stopProcessing();
  }
  expect(Math.max(...acknowledgements)).toBeLessThan(5_000);
  const stored = await statusOf(poison.id);
  expect(stored).toMatchObject({ status: 'processed', error: null });
  expect(stored?.seconds).toBeLessThan(BATCH_BUDGET_MS / 1000);
  for (const event of ordinary) expect((await statusOf(event.id))?.status).toBe('processed');
  const { rows } = await t.pool.query(
    `select snapshot->>'description' as description from payments where id = $1`,
    ['py_poison'],
  );
  expect(rows[0].description).toContain('****');
  const shown = await request(t.app).get(`/api/events/${poison.id}`).set(auth);
  expect(shown.status).toBe(200);
  expect(shown.body.data.body.data.description).toBe(rows[0].description);

  // A restart finds it waiting again (the process died while projecting it): the new process is ready at once
  // and projects it and what came after.
  await t.pool.query(`update events set status = 'received', processed_at = null where event_id = $1`, [
    poison.id,
  ]);
  const restarted = await startTestApp({ databaseUrl: t.databaseUrl });
  const stopAgain = processDeliveries(restarted);
  try {
    const after = paymentEvent();
    await postSigned(restarted.app, after).expect(200);
    const ready = await request(restarted.app).get('/readyz').timeout(2_000);
    expect(ready.status).toBe(200);
    await waitUntilNoneWaits(BATCH_BUDGET_MS + 5_000);
    expect((await statusOf(poison.id))?.status).toBe('processed');
    expect((await statusOf(after.id))?.status).toBe('processed');
  } finally {
    await stopAgain();
    await restarted.close();
  }
});

it('a signed body nested 100,000 levels deep is quarantined, and its console page answers 200', async () => {
  const depth = 100_000;
  const raw = JSON.stringify(paymentEvent({ data: { id: 'py_deep', nested: 'HERE' } })).replace(
    '"HERE"',
    `${'['.repeat(depth)}${']'.repeat(depth)}`,
  );
  const response = await postSigned(t.app, raw);
  expect(response.status).toBe(200);
  const { rows } = await t.pool.query(
    `select id, status, quarantine_reason from events where body_sha256 = sha256(convert_to($1, 'utf8'))`,
    [raw],
  );
  expect(rows[0]).toMatchObject({ status: 'quarantined', quarantine_reason: 'nested deeper than 64 levels' });
  const agent = await signIn(t, API_TOKEN);
  const page = await agent.get(`/console/deliveries/${rows[0].id}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('nested deeper than 64 levels');
});

it('an API snapshot nested 20,000 levels deep fails with the reason, and the console and API show it', async () => {
  const depth = 20_000;
  const eventId = 'evt_api_deep';
  const raw = JSON.stringify(
    paymentEvent({ id: eventId, data: { id: 'py_api_deep', amount: 1, currency: 'usd', nested: 'HERE' } }),
  ).replace('"HERE"', `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  await insertApiSnapshots(t.pool, [
    {
      eventId,
      eventName: 'payment.created',
      accountId: 'acc_sub_1',
      accountType: 'test',
      rawBody: Buffer.from(raw),
      bodySha256: Buffer.alloc(32),
      receivedAt: new Date(),
    },
  ]);
  const stopProcessing = processDeliveries(t);
  try {
    await waitUntilNoneWaits(BATCH_BUDGET_MS);
  } finally {
    await stopProcessing();
  }
  expect(await statusOf(eventId)).toMatchObject({
    status: 'failed',
    error: 'body nested deeper than 64 levels',
  });
  const shown = await request(t.app).get(`/api/events/${eventId}`).set(auth);
  expect(shown.status).toBe(200);
  expect(shown.body.data.error).toBe('body nested deeper than 64 levels');
  expect(JSON.stringify(shown.body)).toContain(TOO_DEEP);
  const { rows } = await t.pool.query('select id from events where event_id = $1', [eventId]);
  const agent = await signIn(t, API_TOKEN);
  const page = await agent.get(`/console/deliveries/${rows[0].id}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(TOO_DEEP);
});
