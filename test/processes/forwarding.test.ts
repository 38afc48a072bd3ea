import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sequenceChanges } from '../../src/changes/sequenceChanges.ts';
import { sign } from '../../src/ingest/signature.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { type Role, startRole } from '../helpers/roles.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import { type Received, startReceiver, verifyDelivery } from '../subscriptions/helpers.ts';

/**
 * Forwarding end to end: web and worker as separate processes, a local receiver that fails some attempts,
 * payments updated several times (with duplicate and out-of-order snapshots), and kill -9 of the worker and of
 * the web mid-stream. The changes forwarded are whatever the `changes` table holds: the projections' outbox
 * appends them for the deliveries posted here, and this test appends more of its own (`py_outbox_*`) while the
 * processes run, so the stream goes on through both kills.
 */
const SECRET = 'whsec_forwarding_process_test_0123456789';
const TOKEN = 'forwarding-process-token-0123456789';
const TYPES = ['payment.*', 'refund.*'];
let databaseUrl: string;
let pool: pg.Pool;
const roles: Role[] = [];
const env = () => ({ DATABASE_URL: databaseUrl, WEBHOOK_SECRETS: SECRET, API_TOKEN: TOKEN, PORT: '0' });
const start = (role: 'web' | 'worker') => {
  const started = startRole(role, env(), role === 'web' ? 'web listening' : 'worker started');
  roles.push(started);
  return started;
};

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
});
afterAll(async () => {
  for (const role of roles) role.child.kill('SIGKILL');
  await pool.end();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString();
const snapshot = (id: string, minute: number, status: string) =>
  JSON.stringify(
    paymentEvent({
      event_name: minute === 0 ? 'payment.created' : 'payment.updated',
      data: {
        id,
        amount: 5_000 + minute,
        currency: 'usd',
        status,
        created_at: at(0),
        updated_at: at(minute),
        fees: [],
      },
    }),
  );

async function postWebhook(port: number, body: string): Promise<void> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(SECRET, timestamp, body) },
    body,
  });
  expect(response.status).toBe(200);
}

// Three updates per payment, each posted twice, the second update before the first (an older snapshot late).
const postPayments = async (port: number, from: number, count: number) => {
  for (let n = from; n < from + count; n += 1) {
    const id = `py_process_${n}`;
    for (const body of [snapshot(id, 0, 'pending'), snapshot(id, 2, 'succeeded'), snapshot(id, 1, 'pending')])
      for (const _twice of [1, 2]) await postWebhook(port, body);
  }
};

// The outbox's rows for objects no delivery touches: payments, refunds and disputes (not subscribed), each
// object's versions appended in order, several objects interleaved, committed and left for the sequencer.
let appended = 0;
async function appendOutboxChanges(rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    appended += 1;
    const version = appended;
    await pool.query(
      `insert into changes (type, object, object_id, object_version, account_id, account_type, occurred_at, event_ids, data)
       select t.type, split_part(t.type, '.', 1), t.object_id, $1, 'acc_sub_1', 'test', now(), '{}',
              jsonb_build_object('id', t.object_id, 'version', $1::int)
         from (values ($2, 'py_outbox_1'), ($2, 'py_outbox_2'), ($3, 're_outbox_1'), ($4, 'dp_outbox_1')) as t(type, object_id)`,
      [
        version,
        version === 1 ? 'payment.created' : 'payment.updated',
        version === 1 ? 'refund.created' : 'refund.updated',
        version === 1 ? 'dispute.created' : 'dispute.updated',
      ],
    );
  }
}

it('every change of its types arrives, per object in object_version order, signed, through kill -9 of worker and web', async () => {
  // The receiver fails the first attempt of every third change, and answers slowly now and then.
  const attemptsOf = new Map<string, number>();
  const receiver = await startReceiver((req, res) => {
    const id = String(req.headers['webhook-id']);
    const attempt = (attemptsOf.get(id) ?? 0) + 1;
    attemptsOf.set(id, attempt);
    const seq = Number(id.slice('chg_'.length));
    if (seq % 3 === 0 && attempt === 1) {
      res.statusCode = 503;
      return res.end();
    }
    setTimeout(() => res.end(), seq % 7 === 0 ? 300 : 0);
  });
  let web = start('web');
  let worker = start('worker');
  let { port } = (await web.started) as { port: number };
  await worker.started;
  const created = await fetch(`http://127.0.0.1:${port}/api/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, types: TYPES }),
  });
  expect(created.status).toBe(201);
  const { data: subscription } = (await created.json()) as { data: { id: string; secret: string } };

  await postPayments(port, 0, 5);
  await appendOutboxChanges(3);
  await waitFor('the first deliveries', () =>
    until(receiver.received.length >= 6, `${receiver.received.length}`),
  );

  // kill -9 of the worker mid-stream: its claims lapse and another worker sends them again.
  worker.child.kill('SIGKILL');
  await worker.exited;
  await appendOutboxChanges(2);
  await postPayments(port, 5, 3);
  worker = start('worker');
  await worker.started;
  await appendOutboxChanges(2);

  // kill -9 of the web: deliveries wait for it; the worker goes on forwarding meanwhile.
  web.child.kill('SIGKILL');
  await web.exited;
  await appendOutboxChanges(2);
  web = start('web');
  ({ port } = (await web.started) as { port: number });
  await postPayments(port, 8, 2);
  await appendOutboxChanges(1);

  // Every sequenced change of the subscription's types, once everything is projected and numbered.
  await waitFor(
    'the deliveries to be projected',
    async () => {
      const { rows } = await pool.query(
        `select count(*)::int as waiting from events where status = 'received'`,
      );
      until(rows[0].waiting === 0, `${rows[0].waiting} waiting`);
    },
    { timeoutMs: 30_000 },
  );
  await sequenceChanges(pool);
  const { rows: expected } = await pool.query<{
    seq: number;
    object: string;
    object_id: string;
    object_version: number;
  }>(
    `select seq, object, object_id, object_version from changes
      where seq is not null and split_part(type, '.', 1) in ('payment', 'refund') order by seq`,
  );
  expect(expected.length).toBeGreaterThanOrEqual(3 * appended);
  const received = () => new Set(receiver.received.map((delivery) => String(delivery.headers['webhook-id'])));
  await waitFor(
    'every change to arrive',
    () => {
      const missing = expected.filter((change) => !received().has(`chg_${change.seq}`));
      until(missing.length === 0, `${missing.length} missing, e.g. chg_${missing[0]?.seq}`);
    },
    { timeoutMs: 90_000, intervalMs: 500 },
  );

  const changes = receiver.received.map((delivery: Received) => ({
    delivery,
    change: JSON.parse(delivery.body),
  }));
  // Nothing outside the subscription's types; every signature verifies with the standardwebhooks package.
  expect(changes.filter(({ change }) => !['payment', 'refund'].includes(change.object))).toEqual([]);
  for (const { delivery, change } of changes) {
    expect(verifyDelivery(subscription.secret, delivery)).toEqual(change);
    expect(delivery.headers['webhook-id']).toBe(change.id);
  }
  // Per object, in object_version order: a change sent again (a retry, or after the kill) never follows a
  // later version of its object.
  const versionsByObject = new Map<string, number[]>();
  for (const { change } of changes) {
    const key = `${change.object}/${change.object_id}`;
    versionsByObject.set(key, [...(versionsByObject.get(key) ?? []), change.object_version]);
  }
  for (const [key, versions] of versionsByObject)
    expect(versions, key).toEqual(versions.toSorted((a, b) => a - b));
  expect(versionsByObject.get('payment/py_outbox_1')?.at(-1)).toBe(appended);
  // The same id always carried the same body.
  const bodies = new Map<string, string>();
  for (const { delivery, change } of changes) {
    expect(bodies.get(change.id) ?? delivery.body).toBe(delivery.body);
    bodies.set(change.id, delivery.body);
  }
  // Some attempts failed and were retried; the subscription ends caught up.
  expect([...attemptsOf.values()].some((attempts) => attempts > 1)).toBe(true);
  const detail = await waitFor('the subscription to catch up', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/subscriptions/${subscription.id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await answer.json()) as {
      data: { pending: number; lag_seconds: number; attempts: Record<string, number> };
    };
    until(body.data.pending === 0, `pending ${body.data.pending}`);
    return body.data;
  });
  expect(detail.lag_seconds).toBe(0);
  expect(detail.attempts.http_error).toBeGreaterThan(0);
  expect(detail.attempts.delivered).toBeGreaterThanOrEqual(expected.length);
  await receiver.close();
}, 240_000);
