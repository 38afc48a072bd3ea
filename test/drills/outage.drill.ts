import { afterAll, expect, it } from 'vitest';
import { sign } from '../../src/ingest/signature.ts';
import { startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startProxy } from '../helpers/proxy.ts';
import { type Role, startRole } from '../helpers/roles.ts';

const SECRET = 'whsec_process_test_0123456789_abcd';
const OUTAGE_MS = 30_000;
const roles: Role[] = [];
afterAll(() => {
  for (const role of roles) role.child.kill('SIGKILL');
});

it('with Postgres unreachable for 30 s under load: 503 (never 200), the process stays up, /readyz says so, and nothing is lost', async () => {
  const databaseUrl = await createTestDatabase();
  const proxy = await startProxy(databaseUrl);
  const web = startRole(
    'web',
    { DATABASE_URL: proxy.url(), WEBHOOK_SECRETS: SECRET, PORT: '0' },
    'web listening',
  );
  roles.push(web);
  const base = `http://127.0.0.1:${(await web.started).port}`;

  let outage: { from: number; to: number } | null = null;
  const duringOutage: number[] = [];
  const acked = new Set<string>();
  let counter = 0;
  const post = async (body: string) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const sentAt = Date.now();
    const status = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(SECRET, timestamp, body) },
      body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => response.status,
      () => 0,
    );
    // Requests sent and answered entirely inside the outage window.
    if (outage && sentAt >= outage.from && Date.now() <= outage.to) duringOutage.push(status);
    return status;
  };
  const sender = async (until: number) => {
    while (Date.now() < until) {
      counter += 1;
      const body = JSON.stringify({
        id: `evt_outage_${counter}`,
        event_name: 'payment.created',
        account_id: 'acc',
        account_type: 'test',
        version: 'v1',
        data: { id: `py_outage_${counter}`, amount: 100, currency: 'usd', status: 'pending' },
      });
      // Like the provider: retry until acknowledged.
      while ((await post(body)) !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      acked.add(JSON.parse(body).id);
    }
  };

  const loadEnds = Date.now() + OUTAGE_MS + 12_000;
  const sending = Promise.all(Array.from({ length: 8 }, () => sender(loadEnds)));
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await proxy.cut();
  outage = { from: Date.now() + 100, to: Date.now() + OUTAGE_MS - 100 };
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
  expect((await fetch(`${base}/readyz`)).status).toBe(503);
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
  await proxy.restore();
  await sending;

  expect(duringOutage.length).toBeGreaterThan(10);
  expect(duringOutage.filter((status) => status === 200)).toEqual([]);
  expect(new Set(duringOutage)).toEqual(new Set([503]));
  expect(web.child.exitCode).toBeNull();
  expect((await fetch(`${base}/readyz`)).status).toBe(200);

  const t = await startTestApp({ databaseUrl });
  try {
    const stored = await t.pool.query(`select event_id from events`);
    expect(stored.rows.length).toBe(acked.size);
    expect(new Set(stored.rows.map((row) => row.event_id))).toEqual(acked);
  } finally {
    await t.close();
    await proxy.restore();
  }
}, 120_000);
