import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { sign } from '../../src/ingest/signature.ts';
import { storeDeliveries } from '../../src/ingest/storeDeliveries.ts';
import { createLogger } from '../../src/logger.ts';
import { processStoredEvents } from '../../src/projection/processStoredEvent.ts';
import { API_TOKEN, startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { dumpProjections } from '../helpers/projections.ts';
import { type Role, startRole } from '../helpers/roles.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

const DELIVERIES = 50_000;
const SECRET = 'whsec_process_test_0123456789_abcd';
const roles: Role[] = [];
afterAll(() => {
  for (const role of roles) role.child.kill('SIGKILL');
});

// 40,000 distinct events (10,000 payments seen created, succeeded, updated and refunded) and 10,000
// redeliveries: 20 % duplicates, in a shuffled order. The succeeded state reports a fee total its breakdown
// does not add up to (`fee_total_mismatch`), which the newer updated state corrects: a reconciliation of a
// stale state leaves that finding open. Every tenth refund returns two fees the payment does not have, and
// its payment's newest state says the fee kept 55 of 60: those findings stay open on the newest state.
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
          fee_amount: 70,
          fees: [{ id: `pyfee_crash_${p}`, type: 'processing_fee', amount: 60, remaining_amount: 60 }],
        }),
      ],
      [
        'payment.updated',
        payment('partially_refunded', 3, {
          amount_refunded: 100,
          fee_amount: 60,
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
          returned_fees:
            p % 10 === 0
              ? ['a', 'b'].map((which) => ({
                  id: `rtfee_crash_${p}_${which}`,
                  payment_fee_id: `pyfee_elsewhere_${p}_${which}`,
                  returned_amount: 5,
                }))
              : [
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

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  await waitFor(what, async () => until(await check(), 'not yet'), { timeoutMs, intervalMs: 250 });
}

it('kill -9 of web and worker during 50,000 deliveries loses nothing, processes everything exactly once and reconciles every payment on its newest state within 2 minutes', async () => {
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

  // Kill the web process three times and the worker twice while the load runs, the worker each time while
  // it holds reconciliations: their jobs are left active, with the same payments' newer ones behind them. A
  // job seen active can still complete before the kill lands (its completion already sent): the worker is
  // then started and killed again, up to five times, until a kill leaves reconciliations active.
  const probe = createPool(databaseUrl, createLogger('silent'), 1);
  const activeAtKill: number[] = [];
  const activeReconciliations = async () =>
    (
      await probe.query(
        `select count(*)::int as n from pgboss.job where name = 'reconcile-payments' and state = 'active'`,
      )
    ).rows[0].n as number;
  for (let round = 0; round < 3; round++) {
    await waitUntil(
      async () => next > (round + 1) * 12_000 || next >= bodies.length,
      120_000,
      'load progress',
    );
    for (let attempt = 1; round < 2; attempt++) {
      await waitUntil(
        async () => (await activeReconciliations()) > 0,
        60_000,
        'reconciliations to be active',
      );
      worker.child.kill('SIGKILL');
      const active = await activeReconciliations();
      if (active > 0 || attempt === 5) {
        activeAtKill.push(active);
        break;
      }
      worker = startRole('worker', env, 'worker started');
      roles.push(worker);
      await worker.started;
    }
    web.child.kill('SIGKILL');
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
  const lastAck = Date.now();
  // Set inside the wait below: when every delivery was processed, before the reconciliations were done.
  const timing: { processedSeconds: number | null } = { processedSeconds: null };
  await probe.end();
  expect(acked.size).toBe(40_000);
  // What the killed workers held (read just after each kill, before anything could expire them).
  expect(activeAtKill.every((active) => active > 0)).toBe(true);

  const t = await startTestApp({ databaseUrl });
  try {
    const stored = await t.pool.query(
      `select count(*)::int as rows, count(distinct event_id)::int as ids from events`,
    );
    expect(stored.rows[0]).toEqual({ rows: 40_000, ids: 40_000 });
    // Deliveries the killed workers had claimed are released with their connections and claimed again; their
    // jobs miss their heartbeat and are retried. Within 2 minutes of the last
    // acknowledgement everything is processed, no job of any queue waits or runs, and every payment is
    // reconciled on its newest state. pg-boss's table is read directly on purpose: its API counts active
    // jobs only as of its last monitor pass, and listing 40,000 jobs to find stuck ones would take the queue.
    await waitUntil(
      async () => {
        const { rows } = await t.pool.query(
          `select (select count(*) from events where status <> 'processed')::int as waiting,
                  (select count(*) from pgboss.job where state in ('created', 'retry', 'active'))::int as jobs,
                  (select count(*) from payment_reconciliation_states
                    where reconciled_version <> projected_version or unreconciled_since is not null)::int as stale`,
        );
        if (rows[0].waiting === 0) timing.processedSeconds ??= (Date.now() - lastAck) / 1000;
        return rows[0].waiting === 0 && rows[0].jobs === 0 && rows[0].stale === 0;
      },
      120_000 - (Date.now() - lastAck),
      'the worker to process and reconcile everything',
    );
    const drainSeconds = (Date.now() - lastAck) / 1000;
    expect(drainSeconds).toBeLessThan(120);
    const failed = await t.pool.query(
      `select name, count(*)::int as n from pgboss.job where state = 'failed' group by name`,
    );
    expect(failed.rows).toEqual([]);
    const states = await t.pool.query(
      `select count(*)::int as payments, count(s.payment_id)::int as reconciled
         from payments p left join payment_reconciliation_states s
              on s.payment_id = p.id and s.reconciled_version = s.projected_version and s.unreconciled_since is null`,
    );
    expect(states.rows[0]).toEqual({ payments: 10_000, reconciled: 10_000 });
    const status = await request(t.app).get('/api/status').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(status.body.data).toMatchObject({ unreconciled_payments: 0, oldest_unreconciled_s: null });
    // The findings of the newest states, and only those: a reconciliation of a stale state would have left
    // `fee_total_mismatch` open, or `fee_remaining_mismatch` on a payment whose refund it had not seen.
    const open = await t.pool.query(
      `select code, severity, count(*)::int as n from findings where status = 'open' group by code, severity order by code`,
    );
    expect(open.rows).toEqual([
      { code: 'fee_remaining_mismatch', severity: 'warning', n: 1_000 },
      { code: 'returned_fee_unknown', severity: 'error', n: 1_000 },
    ]);
    const sample = await t.pool.query(
      `select subject_type, subject_id, expected, actual from findings
        where status = 'open' and subject_id in ('re_crash_4200', 'pyfee_crash_4200') order by subject_id`,
    );
    expect(sample.rows).toEqual([
      { subject_type: 'payment_fee', subject_id: 'pyfee_crash_4200', expected: 60, actual: 55 },
      {
        subject_type: 'refund',
        subject_id: 're_crash_4200',
        expected: ['pyfee_crash_4200'],
        actual: ['pyfee_elsewhere_4200_a', 'pyfee_elsewhere_4200_b'],
      },
    ]);
    process.stdout.write(
      `crash drill: every delivery processed ${timing.processedSeconds?.toFixed(1)} s and everything reconciled ${drainSeconds.toFixed(1)} s after the last acknowledgement; reconciliations active at the worker kills: ${activeAtKill.join(', ')}\n`,
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
