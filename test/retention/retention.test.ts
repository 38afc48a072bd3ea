import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import retentionPurge from '../../jobs/retention-purge.ts';
import { loadConfig } from '../../src/config.ts';
import { DAY_MS } from '../../src/domain/days.ts';
import { findEvent } from '../../src/ingest/deliveryReadQueries.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { buildDailyReport } from '../../src/reports/buildDailyReport.ts';
import { withReportSnapshot } from '../../src/reports/withReportSnapshot.ts';
import { purgeBodies } from '../../src/retention/purgeBodies.ts';
import { page, signIn, textOf } from '../console/signIn.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { deliver, drain, fixtureBodies, fixtureNames, waitForJobs } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
/** The real CLI, asynchronously: this process's own workers go on answering it meanwhile. */
const cli = (args: string[], databaseUrl: string) =>
  runScript(['src/cli/main.ts', ...args], { DATABASE_URL: databaseUrl });
/** The same dispatch in this process: `tally purge --dry-run` below runs the real CLI, the other cases run here. */
const cliHere = (args: string[], databaseUrl: string) => tallyInProcess(args, { DATABASE_URL: databaseUrl });

type EventState = {
  status: string;
  raw_body: Buffer;
  body_purged_at: Date | null;
  body_sha256: string;
  headers: Record<string, string>;
};
async function eventStates(t: TestApp): Promise<Map<number, EventState>> {
  const { rows } = await t.pool.query<EventState & { id: number }>(
    `select id, status, raw_body, body_purged_at, encode(body_sha256, 'hex') as body_sha256, headers
       from events order by id`,
  );
  return new Map(rows.map(({ id, ...row }) => [id, row]));
}

// The failed delivery's job keeps retrying with back-off: wait for the rest, not for it.
// Projects what is waiting right here: the app runs no projection loop, so a delivery made to wait stays so.
async function processed(t: TestApp) {
  while ((await processNextEvents(t, 100)).claimed > 0);
  await waitForJobs(t, ['reconcile-payments']);
}

const dailyReport = (t: TestApp, date: string) =>
  withReportSnapshot(t.pool, (client) =>
    buildDailyReport(client, date, new Date('2026-12-01T00:00:00Z'), 'UTC'),
  );

/**
 * One app with every recorded fixture (processed), a quarantined delivery, a conflicting body, one that
 * failed and one still waiting: all but the newest aged 40 days, with RAW_BODY_RETENTION_DAYS=30.
 */
describe('retention purge', () => {
  let t: TestApp;
  let recent: number[];
  let failedId: number;
  let waitingId: number;
  let quarantinedId: number;
  let conflicted: { id: number; event_id: string };

  beforeAll(async () => {
    t = await startTestApp({
      worker: true,
      workerJobs: ['reconcile-payments', 'retention-purge'],
      env: { RAW_BODY_RETENTION_DAYS: '30' },
    });
    const first = paymentEvent();
    await deliver(t.app, [
      ...fixtureNames().flatMap(fixtureBodies),
      JSON.stringify(first),
      JSON.stringify({ not: 'an envelope' }),
      // Fails in the worker: a payment without an amount.
      JSON.stringify(paymentEvent({ data: { id: 'py_retention_failed', currency: 'usd' } })),
    ]);
    expect((await postSigned(t.app, { ...first, data: { changed: true } })).status).toBe(200);
    await processed(t);
    await t.pool.query(`update events set received_at = received_at - interval '40 days'`);
    await t.pool.query(`update event_conflicts set received_at = received_at - interval '40 days'`);
    // Then two recent deliveries, processed.
    await deliver(t.app, [JSON.stringify(paymentEvent()), JSON.stringify(paymentEvent())]);
    await processed(t);
    const ids = await t.pool.query<{ id: number; status: string; event_id: string | null; recent: boolean }>(
      `select id, status, event_id, received_at > now() - interval '1 day' as recent from events order by id`,
    );
    failedId = ids.rows.find((row) => row.status === 'failed')?.id as number;
    quarantinedId = ids.rows.find((row) => row.status === 'quarantined')?.id as number;
    conflicted = ids.rows.find((row) => row.event_id === first.id) as { id: number; event_id: string };
    recent = ids.rows.filter((row) => row.recent).map((row) => row.id);
    expect(recent).toHaveLength(2);
    // One old processed delivery made to wait again, as if its worker had not got to it yet.
    waitingId = ids.rows.find((row) => row.status === 'processed' && !row.recent && row.id !== conflicted.id)
      ?.id as number;
    await t.pool.query(`update events set status = 'received' where id = $1`, [waitingId]);
  });
  afterAll(() => t.close());

  it('purges the bodies of old finished deliveries only, keeping rows, hashes, headers and state; projections and reports unchanged', async () => {
    const before = await eventStates(t);
    const projections = await dumpProjections(t.pool, { withRowIds: true });
    const reportDays = ['2026-11-01', '2026-11-02', '2026-11-03'];
    const reports = await Promise.all(reportDays.map((day) => dailyReport(t, day)));

    const started = await request(t.app).post('/api/jobs/retention-purge').set(auth).send({});
    expect(started.status).toBe(202);
    await waitForJobs(t, ['retention-purge']);

    const after = await eventStates(t);
    const kept = new Set([...recent, failedId, waitingId]);
    for (const [id, was] of before) {
      const now = after.get(id) as EventState;
      // Never the row, its hash, headers or processing state.
      expect({ id, status: now.status, hash: now.body_sha256, headers: now.headers }).toEqual({
        id,
        status: was.status,
        hash: was.body_sha256,
        headers: was.headers,
      });
      if (kept.has(id)) {
        expect({ id, purged: now.body_purged_at, raw: now.raw_body.equals(was.raw_body) }).toEqual({
          id,
          purged: null,
          raw: true,
        });
      } else {
        expect({
          id,
          purged: now.body_purged_at instanceof Date,
          raw: now.raw_body.length,
          shown: (await findEvent(t.pool, { rowId: id }))?.body,
        }).toEqual({ id, purged: true, raw: 0, shown: null });
      }
    }
    expect(after.get(quarantinedId)?.body_purged_at).toBeInstanceOf(Date);
    const conflicts = await t.pool.query(`select raw_body, body_purged_at from event_conflicts`);
    expect(conflicts.rows).toEqual([{ raw_body: Buffer.alloc(0), body_purged_at: expect.any(Date) }]);

    expect(await dumpProjections(t.pool, { withRowIds: true })).toEqual(projections);
    expect(await Promise.all(reportDays.map((day) => dailyReport(t, day)))).toEqual(reports);

    const purgedCount = before.size - kept.size;
    const status = await request(t.app).get('/api/status').set(auth);
    const oldestKept = await t.pool.query<{ at: Date }>(
      'select min(received_at) as at from events where id = any($1::bigint[])',
      [[...kept]],
    );
    expect(status.body.data).toMatchObject({
      purged_bodies: purgedCount,
      oldest_kept_body_at: oldestKept.rows[0]?.at.toISOString(),
    });
    const event = await request(t.app).get(`/api/events/${conflicted.event_id}`).set(auth);
    const purgedAt = await t.pool.query<{ at: Date }>(
      'select body_purged_at as at from events where id = $1',
      [conflicted.id],
    );
    expect(event.body.data).toMatchObject({
      status: 'processed',
      body: null,
      body_purged_at: purgedAt.rows[0]?.at.toISOString(),
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The console says so, and the delivery stays on its payment's timeline.
    const reader = await signIn(t, API_TOKEN);
    const shown = textOf((await page(reader, `/console/deliveries/${conflicted.id}`)).html);
    expect(shown).toContain('Purged by retention on');
    expect(event.body.data.payment_id).toMatch(/^py_/);
    const timeline = textOf((await page(reader, `/console/payments/${event.body.data.payment_id}`)).html);
    expect(timeline).toContain(conflicted.event_id);

    // Run again: nothing left to purge, nothing counted twice.
    await retentionPurge.handle({}, { ...t, now: () => new Date() }, 'again');
    expect((await request(t.app).get('/api/status').set(auth)).body.data.purged_bodies).toBe(purgedCount);
  });

  it('tally export skips purged deliveries and says how many', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-retention-'));
    const file = path.join(dir, 'export.jsonl');
    const result = await cliHere(['export', '--out', file], t.databaseUrl);
    expect(result.code).toBe(0);
    const purged = await t.pool.query<{ n: number }>(
      `select count(*)::int as n from events where source = 'webhook' and body_purged_at is not null`,
    );
    expect(result.stderr).toContain(`skipped ${purged.rows[0]?.n} deliveries whose body was purged`);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    // The recent two, the failed one and the one still waiting.
    expect(lines).toHaveLength(4);
  });

  it('tally reprocess --all refuses with the purged count, and --allow-purged rebuilds from what is kept', async () => {
    const purged = await t.pool.query<{ n: number }>(
      `select count(*)::int as n from events where body_purged_at is not null and status <> 'quarantined'`,
    );
    const count = purged.rows[0]?.n as number;
    expect(count).toBeGreaterThan(10);
    const refused = await cliHere(['reprocess', '--all'], t.databaseUrl);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${count} deliveries cannot be replayed: their body was purged`);
    expect(refused.stderr).toContain('--allow-purged');
    const payments = await t.pool.query('select count(*)::int as n from payments');
    expect(payments.rows[0].n).toBeGreaterThan(0);

    const rebuilt = await cliHere(['reprocess', '--all', '--allow-purged'], t.databaseUrl);
    expect(rebuilt.stdout).toBe(`reprocessed 4 deliveries, 1 failed, ${count} not replayed (body purged)\n`);
    expect(rebuilt.code).toBe(1);
    const states = await t.pool.query(
      `select status, count(*)::int as n from events where body_purged_at is not null group by status order by status`,
    );
    expect(states.rows).toEqual([
      { status: 'processed', n: count },
      { status: 'quarantined', n: 1 },
    ]);
  });
});

describe('tally purge', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ worker: true, workerJobs: ['process-event'] });
    await deliver(
      t.app,
      Array.from({ length: 7 }, () => JSON.stringify(paymentEvent())),
    );
    await drain(t);
    await t.pool.query(`update events set received_at = received_at - interval '10 days'`);
  });
  afterAll(() => t.close());

  it('--dry-run counts, then purges with any age, and refuses a bad --older-than naming it', async () => {
    const dry = await cli(['purge', '--older-than', '5', '--dry-run'], t.databaseUrl);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^would purge the bodies of 7 deliveries and 0 conflicting bodies received before /,
    );
    const kept = await t.pool.query('select count(*)::int as n from events where body_purged_at is null');
    expect(kept.rows[0].n).toBe(7);

    expect((await cliHere(['purge', '--older-than', '11'], t.databaseUrl)).stdout).toMatch(
      /^purged the bodies of 0 deliveries/,
    );
    const run = await cliHere(['purge', '--older-than', '5'], t.databaseUrl);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^purged the bodies of 7 deliveries and 0 conflicting bodies received before /,
    );

    for (const bad of ['0', 'ten', '-3']) {
      const refused = await cliHere(['purge', `--older-than=${bad}`], t.databaseUrl);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--older-than must be a positive whole number of days');
    }
  });

  it('a purge cut short resumes where it stopped, and two at once purge each body once', async () => {
    await t.pool.query(`update events set body_purged_at = null, raw_body = 'x'`);
    await t.pool.query('truncate body_purges');
    const cutoff = new Date(Date.now() - 5 * DAY_MS);
    await expect(
      purgeBodies(t.pool, {
        cutoff,
        now: () => new Date(),
        pacing: { minBatch: 2, startBatch: 2, maxBatch: 2 },
        onBatch: (done) => {
          if (done.events >= 2) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    const partly = await t.pool.query(
      'select count(*)::int as n from events where body_purged_at is not null',
    );
    expect(partly.rows[0].n).toBe(2);
    const runs = await Promise.all(
      [1, 2].map(() =>
        purgeBodies(t.pool, {
          cutoff,
          now: () => new Date(),
          pacing: { minBatch: 1, startBatch: 1, maxBatch: 1 },
        }),
      ),
    );
    expect(runs.reduce((sum, run) => sum + run.events, 0)).toBe(5);
    const counted = await t.pool.query('select sum(purged_events)::int as n from body_purges');
    expect(counted.rows[0].n).toBe(7);
  });
});

describe('RAW_BODY_RETENTION_DAYS', () => {
  it('fails at boot, naming the variable, unless a positive whole number of days', () => {
    for (const value of ['0', '-1', '1.5', 'thirty']) {
      expect(() => loadConfig({ RAW_BODY_RETENTION_DAYS: value })).toThrow(
        'RAW_BODY_RETENTION_DAYS: must be a positive whole number of days',
      );
    }
    expect(loadConfig({ RAW_BODY_RETENTION_DAYS: '90' }).RAW_BODY_RETENTION_DAYS).toBe(90);
    expect(loadConfig({}).RAW_BODY_RETENTION_DAYS).toBeUndefined();
    const worker = spawnSync(process.execPath, ['src/processes/worker.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
        RAW_BODY_RETENTION_DAYS: '0',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(worker.status).toBe(1);
    expect(worker.stderr).toContain('RAW_BODY_RETENTION_DAYS: must be a positive whole number of days');
  });
});
