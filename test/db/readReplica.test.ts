import type pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { createReads } from '../../src/db/readPool.ts';
import { createLogger } from '../../src/logger.ts';
import { withReportSnapshot } from '../../src/reports/withReportSnapshot.ts';
import { page, signIn, textOf } from '../console/signIn.ts';
import { deliverPayment, findingsOf, READ_TOKEN } from '../findings/workflow/helpers.ts';
import { API_TOKEN, type TestApp } from '../helpers/app.ts';
import { startRole } from '../helpers/roles.ts';
import { type PrimaryWithStandby, startPrimaryWithStandby } from '../helpers/standby.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import {
  auth,
  checkWithPromtool,
  deliver,
  eventStatus,
  linesSaying,
  metricsText,
  queryStandby,
  readReplica,
  startAppReadingStandby,
} from './readReplicaHelpers.ts';

let servers: PrimaryWithStandby;
beforeAll(async () => {
  servers = await startPrimaryWithStandby();
}, 180_000);
afterAll(() => servers?.close());

/**
 * Opens a report snapshot on reads of the standby, stops the standby between its two statements, and says
 * which ran in recovery: the first on the standby, then both again on the primary.
 */
async function loseStandbyDuringSnapshot() {
  const log = createLogger('silent');
  const primary = createPool(servers.primaryUrl, log);
  const reads = createReads({ primary, replicaUrl: servers.standbyUrl, maxLagSeconds: 3600, log });
  try {
    await waitFor('reads on the replica', async () => until(reads.replica?.readsFrom === 'replica', ''));
    const seen: boolean[] = [];
    await withReportSnapshot(reads.pool, async (client) => {
      const inRecovery = async () =>
        (await client.query<{ r: boolean }>('select pg_is_in_recovery() as r')).rows[0]?.r === true;
      seen.push(await inRecovery());
      await servers.stopStandby();
      seen.push(await inRecovery());
    });
    return { first: seen[0], again: seen.slice(1) };
  } finally {
    await reads.close();
    await primary.end();
  }
}

const onStandby = <T extends pg.QueryResultRow>(sql: string) => queryStandby<T>(servers, sql);
const startApp = (maxLagSeconds: number, options: { worker?: boolean; lagCheckIntervalMs?: number } = {}) =>
  startAppReadingStandby(servers, maxLagSeconds, options);

describe('reads with DATABASE_READ_URL on a streaming standby', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(3600);
  }, 60_000);
  afterAll(() => t?.close());

  it('a lag-tolerant GET answers from the standby: what the primary stored shows once replayed, not while replay is paused', async () => {
    const replicated = await deliver(t);
    await waitFor('the delivery on the standby', async () =>
      until((await eventStatus(t, replicated)) === 200, ''),
    );

    await onStandby('select pg_wal_replay_pause()');
    try {
      const held = await deliver(t);
      const onPrimary = await t.pool.query('select 1 from events where event_id = $1', [held]);
      expect(onPrimary.rowCount).toBe(1);
      // Within READ_MAX_LAG_SECONDS the read stays on the standby, which has not replayed the delivery.
      expect(await eventStatus(t, held)).toBe(404);
      const tallyReads = await onStandby<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity where application_name = 'tally-reads'`,
      );
      expect(tallyReads[0]?.count).toBeGreaterThan(0);
      const onPrimaryReads = await t.pool.query(
        `select 1 from pg_stat_activity where application_name = 'tally-reads'`,
      );
      expect(onPrimaryReads.rowCount).toBe(0);
      await waitFor('the lag to show', async () => {
        const replica = await readReplica(t);
        until((replica?.lag_s ?? 0) > 0, JSON.stringify(replica));
        expect(replica).toMatchObject({ reads_from: 'replica', fallback_reason: null });
      });
      await onStandby('select pg_wal_replay_resume()');
      await waitFor('the held delivery on the standby', async () =>
        until((await eventStatus(t, held)) === 200, ''),
      );
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
  });

  it('status and metrics show a caught-up standby of an idle primary as lag 0', async () => {
    await waitFor('lag 0', async () => {
      const replica = await readReplica(t);
      until(replica?.lag_s === 0, JSON.stringify(replica));
      expect(replica).toEqual({
        reads_from: 'replica',
        lag_s: 0,
        checked_at: expect.any(String),
        fallback_reason: null,
      });
    });
    const text = await metricsText(t);
    expect(text).toMatch(/^tally_read_replica_lag_seconds 0$/m);
    expect(text).toMatch(/^tally_read_replica_fallback 0$/m);
    expect(text).toContain('tally_read_replica_fallbacks_total{reason="lag"} 0');
    expect(linesSaying(t, 'reads go to the read replica')).toHaveLength(1);
  });
});

describe('the web role with DATABASE_READ_URL', () => {
  it('checks the replica on its own connection, shows its lag on /metrics and closes it on SIGTERM', async () => {
    const web = startRole(
      'web',
      {
        DATABASE_URL: servers.primaryUrl,
        DATABASE_READ_URL: servers.standbyUrl,
        WEBHOOK_SECRETS: 'whsec_read_replica_0123456789_abcd',
        PORT: '0',
        METRICS_PORT: '0',
      },
      'metrics listening',
    );
    try {
      const { port } = await web.started;
      await waitFor('the first lag check', async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        until(/^tally_read_replica_lag_seconds \d/m.test(text), 'no lag yet');
        expect(text).toMatch(/^tally_read_replica_fallback 0$/m);
      });
      expect(web.lines.filter((line) => line.includes('"reads go to the read replica"'))).toHaveLength(1);
      const checks = await onStandby<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity where application_name = 'tally-replica-lag'`,
      );
      expect(checks[0]?.count).toBe(1);
    } finally {
      web.child.kill('SIGTERM');
    }
    expect(await web.exited).toBe(0);
  });
});

describe('the console and the reports on a standby', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(3600, { worker: true });
  }, 60_000);
  afterAll(() => t?.close());

  it('a session that changed a finding reads the primary until the standby has the change; others read the standby', async () => {
    await deliverPayment(t, 'py_replica_console', 71);
    const [finding] = await waitFor('the finding on the standby', async () => {
      const findings = await findingsOf(t, API_TOKEN, 'py_replica_console');
      until(findings.length === 1, 'no finding yet');
      return findings;
    });
    const id = finding?.id as string;
    const admin = await signIn(t, API_TOKEN);
    const reader = await signIn(t, READ_TOKEN);
    const before = await page(admin, `/console/findings/${id}`);
    expect(before.response.status).toBe(200);

    await onStandby('select pg_wal_replay_pause()');
    try {
      const acknowledged = await admin
        .post(`/console/findings/${id}/acknowledge`)
        .type('form')
        .send({ _csrf: before.csrf() });
      expect(acknowledged.status).toBe(303);
      const change = /admin acknowledge: open → acknowledged/;
      // The page the change sends its author to shows it, read from the primary: the standby is paused.
      expect(textOf((await page(admin, `/console/findings/${id}`)).html)).toMatch(change);
      expect(textOf((await page(reader, `/console/findings/${id}`)).html)).not.toMatch(change);
      await onStandby('select pg_wal_replay_resume()');
      await waitFor('the change on the standby', async () => {
        until(change.test(textOf((await page(reader, `/console/findings/${id}`)).html)), 'not replayed yet');
      });
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
  });

  it('the month-end close report and the daily report job read the standby; the report is stored on the primary', async () => {
    const salesOfNovember = async () => {
      const response = await request(t.app).get('/api/periods/2026-11').set(auth);
      expect(response.status).toBe(200);
      const accounts = response.body.data.accounts as { activity: { sales: number } }[];
      return accounts.reduce((sum, account) => sum + account.activity.sales, 0);
    };
    const dailyPayments = async (after: number) => {
      const job = await request(t.app).post('/api/jobs/daily-report').set(auth).send({ date: '2026-11-01' });
      expect(job.status).toBe(202);
      return waitFor('the daily report stored', async () => {
        const { rows } = await t.pool.query<{ id: number; body: { totals: { payments: number }[] } }>(
          `select id, body from reports where kind = 'daily' and period = '2026-11-01' and id > $1
            order by id desc limit 1`,
          [after],
        );
        until(rows.length === 1, 'not stored yet');
        const row = rows[0] as NonNullable<(typeof rows)[0]>;
        return { id: row.id, payments: row.body.totals.reduce((sum, total) => sum + total.payments, 0) };
      });
    };
    await deliverPayment(t, 'py_replica_report', 70);
    const salesBefore = await waitFor('a first payment in the close report', async () => {
      const sales = await salesOfNovember();
      until(sales > 0, 'not replayed yet');
      return sales;
    });

    await onStandby('select pg_wal_replay_pause()');
    let paused: { id: number; payments: number };
    try {
      await deliverPayment(t, 'py_replica_close', 70);
      const projected = await t.pool.query(`select 1 from payments where id = 'py_replica_close'`);
      expect(projected.rowCount).toBe(1);
      expect(await salesOfNovember()).toBe(salesBefore);
      paused = await dailyPayments(0);
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
    await waitFor('the payment in the close report', async () => {
      until((await salesOfNovember()) === salesBefore + 1234, 'not replayed yet');
    });
    expect((await dailyPayments(paused.id)).payments).toBe(paused.payments + 1);
  });
});

describe('the fallback to the primary', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(1);
  }, 60_000);
  afterAll(() => t?.close());

  it('past READ_MAX_LAG_SECONDS reads go to the primary, said once in the log and in the metrics, and come back', async () => {
    await onStandby('select pg_wal_replay_pause()');
    try {
      const held = await deliver(t);
      await waitFor('the fallback', async () => {
        const replica = await readReplica(t);
        until(replica?.reads_from === 'primary', JSON.stringify(replica));
        expect(replica?.fallback_reason).toBe('lag');
        expect(replica?.lag_s).toBeGreaterThan(1);
      });
      // The standby has not replayed it: the answer came from the primary.
      expect(await eventStatus(t, held)).toBe(200);
      // Many checks later, still one line: it is said per change, not per check or query.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const lines = linesSaying(t, 'reads go to the primary');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 40, reason: 'lag', maxLagSeconds: 1 });
      const text = await metricsText(t);
      expect(text).toMatch(/^tally_read_replica_fallback 1$/m);
      expect(text).toContain('tally_read_replica_fallbacks_total{reason="lag"} 1');
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
    await waitFor('reads back on the replica', async () => {
      until((await readReplica(t))?.reads_from === 'replica', 'still on the primary');
    });
    expect(linesSaying(t, 'reads go to the read replica')).toHaveLength(2);
    expect(await metricsText(t)).toMatch(/^tally_read_replica_fallback 0$/m);
  });

  it('with the standby stopped, reads still answer from the primary; ingest and workflow actions never needed it', async () => {
    // Checks the replica once an hour: only a read that fails can find the standby gone.
    const rarelyChecking = await startApp(3600, { lagCheckIntervalMs: 3_600_000 });
    const before = await deliver(t);
    await waitFor('the delivery on the standby', async () =>
      until((await eventStatus(t, before)) === 200, ''),
    );
    // A report's snapshot open on the standby when it stops: read again, whole, on the primary.
    expect(await loseStandbyDuringSnapshot()).toEqual({ first: true, again: [false, false] });
    try {
      // A read that checks out a connection (connect(): a report's snapshot) first, before any query() read.
      expect((await request(rarelyChecking.app).get('/api/periods').set(auth)).status).toBe(200);
      expect(await eventStatus(rarelyChecking, before)).toBe(200);
      expect(await readReplica(rarelyChecking)).toMatchObject({
        reads_from: 'primary',
        fallback_reason: 'unreachable',
        lag_s: null,
      });
      expect(
        linesSaying(rarelyChecking, 'reads go to the primary: the read replica is unreachable'),
      ).toHaveLength(1);
    } finally {
      await rarelyChecking.close();
    }
    await waitFor('the fallback', async () => {
      const replica = await readReplica(t);
      until(replica?.reads_from === 'primary', JSON.stringify(replica));
      expect(replica).toMatchObject({ fallback_reason: 'unreachable', lag_s: null });
    });
    const after = await deliver(t);
    expect(await eventStatus(t, before)).toBe(200);
    expect(await eventStatus(t, after)).toBe(200);
    expect((await request(t.app).get('/api/reports').set(auth)).status).toBe(200);
    const job = await request(t.app).post('/api/jobs/daily-report').set(auth).send({});
    expect(job.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(linesSaying(t, 'reads go to the primary: the read replica is unreachable')).toHaveLength(1);
    // The replica's idle connections, dropped with it, are part of that one change: warnings, not errors.
    const dropped = linesSaying(t, 'idle database client failed').map((line) => JSON.parse(line).level);
    expect(dropped.filter((level) => level >= 50)).toEqual([]);
    const text = await metricsText(t);
    expect(text).toContain('tally_read_replica_fallbacks_total{reason="unreachable"} 1');
    expect(text).toMatch(/^# TYPE tally_read_replica_lag_seconds gauge$/m);
    expect(text).not.toMatch(/^tally_read_replica_lag_seconds /m);
    await checkWithPromtool(text);
  });
});
