import { afterAll, expect, it } from 'vitest';
import { sign } from '../src/ingest/signature.ts';
import { storeDeliveries } from '../src/ingest/storeDeliveries.ts';
import { processStoredEvents } from '../src/projection/processStoredEvent.ts';
import { startTestApp } from './helpers/app.ts';
import { createTestDatabase } from './helpers/database.ts';
import { dumpProjections } from './helpers/projections.ts';
import { type Role, startRole } from './helpers/roles.ts';

const DELIVERIES = 50_000;
const SECRET = 'whsec_process_test';
const roles: Role[] = [];
afterAll(() => {
  for (const role of roles) role.child.kill('SIGKILL');
});

// 40,000 distinct events (10,000 payments seen created, succeeded, updated and refunded) and 10,000
// redeliveries: 20 % duplicates, in a shuffled order.
function deliveries(): string[] {
  const bodies: string[] = [];
  for (let p = 0; p < 10_000; p++) {
    const payment = (status: string, minute: number, extra: Record<string, unknown> = {}) => ({
      id: `py_crash_${p}`,
      amount: 1000 + p,
      currency: 'usd',
      status,
      updated_at: `2026-11-02T10:${String(minute).padStart(2, '0')}:00Z`,
      ...extra,
    });
    const events: [string, object][] = [
      ['payment.created', payment('pending', 0)],
      [
        'payment.succeeded',
        payment('succeeded', 1, {
          fees: [{ id: `pyfee_crash_${p}`, type: 'processing_fee', amount: 60, remaining_amount: 60 }],
        }),
      ],
      [
        'payment.updated',
        payment('partially_refunded', 3, {
          amount_refunded: 100,
          fees: [{ id: `pyfee_crash_${p}`, type: 'processing_fee', amount: 60, remaining_amount: 55 }],
        }),
      ],
      [
        'payment.refunded',
        {
          id: `re_crash_${p}`,
          payment_id: `py_crash_${p}`,
          amount: 100,
          status: 'succeeded',
          updated_at: '2026-11-02T10:02:00Z',
          returned_fees: [
            {
              id: `rtfee_crash_${p}`,
              payment_fee_id: `pyfee_crash_${p}`,
              returned_amount: 5,
              original_amount: 60,
              remaining_amount: 55,
            },
          ],
        },
      ],
    ];
    events.forEach(([eventName, data], index) => {
      bodies.push(
        JSON.stringify({
          id: `evt_crash_${p}_${index}`,
          event_name: eventName,
          account_id: 'acc_crash',
          account_type: 'test',
          platform_account_id: null,
          idempotency_key: null,
          request_id: null,
          version: 'v1',
          data,
        }),
      );
    });
  }
  for (let d = 0; d < DELIVERIES - bodies.length; d++) bodies.push(bodies[(d * 7919) % 40_000] as string);
  let state = 42;
  for (let i = bodies.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [bodies[i], bodies[j]] = [bodies[j] as string, bodies[i] as string];
  }
  return bodies;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

it('kill -9 of web and worker during 50,000 deliveries loses nothing and processes everything exactly once', async () => {
  const databaseUrl = await createTestDatabase();
  const env = { DATABASE_URL: databaseUrl, WEBHOOK_SECRETS: SECRET, PORT: '0' };
  let web = startRole('web', env, 'web listening');
  let worker = startRole('worker', env, 'worker started');
  roles.push(web, worker);
  let url = `http://127.0.0.1:${(await web.started).port}/webhooks`;
  await worker.started;

  const bodies = deliveries();
  const acked = new Set<string>();
  let next = 0;
  // The provider's behaviour: anything not answered 200 is sent again.
  const sender = async () => {
    while (next < bodies.length) {
      const body = bodies[next++] as string;
      for (let attempt = 0; ; attempt++) {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const status = await fetch(url, {
          method: 'POST',
          headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(SECRET, timestamp, body) },
          body,
          signal: AbortSignal.timeout(5_000),
        })
          .then((response) => response.status)
          .catch(() => 0);
        if (status === 200) break;
        if (attempt > 400) throw new Error('a delivery was never acknowledged');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      acked.add(JSON.parse(body).id);
    }
  };
  const sending = Promise.all(Array.from({ length: 32 }, sender));

  // Kill the web process three times and the worker twice while the load runs.
  for (let round = 0; round < 3; round++) {
    await waitFor(async () => next > (round + 1) * 12_000 || next >= bodies.length, 120_000, 'load progress');
    web.child.kill('SIGKILL');
    if (round < 2) worker.child.kill('SIGKILL');
    await web.exited;
    web = startRole('web', env, 'web listening');
    roles.push(web);
    url = `http://127.0.0.1:${(await web.started).port}/webhooks`;
    if (round < 2) {
      worker = startRole('worker', env, 'worker started');
      roles.push(worker);
      await worker.started;
    }
  }
  await sending;
  expect(acked.size).toBe(40_000);

  const t = await startTestApp({ databaseUrl });
  try {
    const stored = await t.pool.query(
      `select count(*)::int as rows, count(distinct event_id)::int as ids from events`,
    );
    expect(stored.rows[0]).toEqual({ rows: 40_000, ids: 40_000 });
    // Rows the killed workers had claimed are released with their connections and claimed again;
    // everything ends processed, nothing stuck and nothing failed.
    await waitFor(
      async () => {
        const { rows } = await t.pool.query(
          `select count(*)::int as n from events where status <> 'processed'`,
        );
        return rows[0].n === 0;
      },
      240_000,
      'the worker to process every delivery',
    );

    // A clean replay of the same distinct deliveries, with no crash, projects the same.
    const clean = await startTestApp();
    try {
      const distinct = [...new Map(bodies.map((body) => [JSON.parse(body).id, body])).values()];
      for (let start = 0; start < distinct.length; start += 500) {
        const batch = distinct.slice(start, start + 500).map((body) => {
          const envelope = JSON.parse(body);
          return {
            eventId: envelope.id,
            eventName: envelope.event_name,
            accountId: envelope.account_id,
            accountType: envelope.account_type,
            headers: {},
            rawBody: Buffer.from(body),
            bodySha256: Buffer.alloc(32),
            jsonStart: 0,
            quarantineReason: null,
            receivedAt: new Date(),
          };
        });
        await storeDeliveries(clean.pool, batch);
      }
      const ids = (await clean.pool.query('select id from events order by id')).rows.map(
        (row) => row.id as number,
      );
      for (let start = 0; start < ids.length; start += 500)
        await processStoredEvents(clean, ids.slice(start, start + 500));
      expect(await dumpProjections(t.pool, { withRowIds: false })).toEqual(
        await dumpProjections(clean.pool, { withRowIds: false }),
      );
    } finally {
      await clean.close();
    }
  } finally {
    await t.close();
  }
}, 600_000);
