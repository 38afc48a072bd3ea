import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sign } from '../../src/ingest/signature.ts';
import { runScript } from '../helpers/childProcess.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { type Role, startRole } from '../helpers/roles.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// docs/provider.md's "Production first run, in order", followed step by step with the real processes: a new
// database, no WEBHOOK_SECRETS until the publisher exists, the provider simulator as the provider.

const ACCOUNT = 'acc_first_run';
const ADMIN = 'first-run-admin-token-0123456789';
const SECRET = 'sigk_firstRunPublisherSecret0123456789';
const BASE_FEES = [
  'processing_ecomm',
  'processing_card_present',
  'processing_ach',
  'processing_ach_expedited',
];

let provider: Awaited<ReturnType<typeof startSimulator>>;
const roles: Role[] = [];
afterAll(async () => {
  for (const role of roles) role.child.kill('SIGKILL');
  await provider?.close();
});

/** The checklist's steps as docs/provider.md words them, by number. */
async function checklist(): Promise<Map<number, string>> {
  const page = await readFile('docs/provider.md', 'utf8');
  const section = page.split('## Production first run, in order')[1]?.split('\n## ')[0] ?? '';
  const steps = new Map<number, string>();
  for (const item of section.split(/\n(?=\d+\. )/).slice(1)) {
    const [, number, text] = /^(\d+)\. ([\s\S]*)$/.exec(item) ?? [];
    steps.set(Number(number), (text ?? '').replace(/\s+/g, ' '));
  }
  return steps;
}

let steps: Map<number, string>;
beforeAll(async () => {
  steps = await checklist();
  provider = await startSimulator();
  for (const feeType of BASE_FEES)
    provider.simulator.store.create(ACCOUNT, feeType, { variable_rate: 2.9, transaction_fee_cents: 30 });
});

const step = (number: number, ...words: string[]) => {
  for (const word of words) expect(steps.get(number), `step ${number} says ${word}`).toContain(word);
};

it('the production first run in docs/provider.md can be followed in order', async () => {
  expect([...steps.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

  step(1, 'DATABASE_URL');
  const env: Record<string, string> = { DATABASE_URL: await createTestDatabase('template0'), PORT: '0' };

  step(2, '`WEBHOOK_SECRETS` unset', 'API_TOKENS', 'BUSINESS_TIME_ZONE');
  Object.assign(env, { API_TOKENS: `me:admin:${ADMIN}`, BUSINESS_TIME_ZONE: 'America/New_York' });
  const auth = { Authorization: `Bearer ${ADMIN}` };

  step(3, 'PROVIDER_BASE_URL', 'PROVIDER_SUB_ACCOUNTS');
  Object.assign(env, provider.env, { PROVIDER_SUB_ACCOUNTS: ACCOUNT });

  step(
    4,
    '`release` once',
    '`web`, `worker` and `clock`',
    '`GET /readyz` answers 200',
    '503 webhook_secret_unset',
  );
  const release = await runScript(['src/processes/release.ts'], { ...env, LOG_LEVEL: 'info' });
  expect(release.code, release.stderr).toBe(0);
  let web = startRole('web', env, 'web listening');
  const worker = startRole('worker', env, 'worker started');
  const clock = startRole('clock', env, 'clock started');
  roles.push(web, worker, clock);
  let { port } = await web.started;
  await Promise.all([worker.started, clock.started]);
  let url = (path: string) => `http://127.0.0.1:${port}${path}`;
  expect((await fetch(url('/readyz'))).status).toBe(200);
  expect(web.lines.some((line) => line.includes('WEBHOOK_SECRETS unset'))).toBe(true);
  const event = paymentEvent({ account_id: ACCOUNT });
  const deliver = () => {
    const body = JSON.stringify(event);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return fetch(url('/webhooks'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'justifi-timestamp': timestamp,
        'justifi-signature': sign(SECRET, timestamp, body),
      },
      body,
    });
  };
  const refused = await deliver();
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('webhook_secret_unset');

  step(5, 'POST /api/jobs/fee-configuration-sync', 'last_fee_sync_at', 'base_fee_configuration_missing');
  const status = async () => {
    const response = await fetch(url('/api/status'), { headers: auth });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  };
  const sync = await fetch(url('/api/jobs/fee-configuration-sync'), { method: 'POST', headers: auth });
  expect(sync.status).toBe(202);
  await waitFor('the first fee sync', async () => until((await status()).last_fee_sync_at !== null, ''), {
    timeoutMs: 30_000,
  });
  const missing = await fetch(url('/api/findings?code=base_fee_configuration_missing&status=open'), {
    headers: auth,
  });
  expect(((await missing.json()) as { data: unknown[] }).data).toEqual([]);

  step(6, 'put its secret in `WEBHOOK_SECRETS`, restart `web`', 'answered `503` and arrive on its retries');
  web.child.kill('SIGTERM');
  expect(await web.exited).toBe(0);
  web = startRole('web', { ...env, WEBHOOK_SECRETS: SECRET }, 'web listening');
  roles.push(web);
  ({ port } = await web.started);
  url = (path: string) => `http://127.0.0.1:${port}${path}`;
  // The provider's retry of the delivery refused in step 4.
  expect((await deliver()).status).toBe(200);

  step(7, '`unprocessed_events` stays near 0', '`quarantined_events` is 0');
  await waitFor('the delivery projected', async () => until((await status()).unprocessed_events === 0, ''), {
    timeoutMs: 30_000,
  });
  expect(await status()).toMatchObject({ unprocessed_events: 0, quarantined_events: 0 });
  const payment = await fetch(url(`/api/payments/${(event.data as { id: string }).id}`), { headers: auth });
  expect(payment.status).toBe(200);

  step(8, '`tally backfill --since', '`POST /api/jobs/payout-sync`');
  const backfill = await runScript(['src/cli/main.ts', 'backfill', '--since', '2026-01-01'], env);
  expect(backfill.code, backfill.stderr).toBe(0);
  const payouts = await fetch(url('/api/jobs/payout-sync'), { method: 'POST', headers: auth });
  expect(payouts.status).toBe(202);
}, 300_000);
