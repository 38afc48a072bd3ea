import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import request from 'supertest';
import { expect } from 'vitest';
import { TOKENS_ENV } from '../findings/workflow/helpers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import type { PrimaryWithStandby } from '../helpers/standby.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

// What readReplica.test.ts drives a primary with a standby through: the app, its status, metrics and log.

export const auth = { Authorization: `Bearer ${API_TOKEN}` };
const run = promisify(execFile);

/** A statement on the standby itself, the way an operator would pause or inspect it. */
export async function queryStandby<T extends pg.QueryResultRow>(
  servers: PrimaryWithStandby,
  sql: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString: servers.standbyUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A standby that is behind and has replayed no transaction since it started cannot tell how far behind it is:
 * an app's second check would then move reads to the primary (reason `lag`) until it can. One committed
 * transaction replayed gives it a replay time, so an app starting on it never counts that fallback.
 */
async function replayOneTransaction(servers: PrimaryWithStandby): Promise<void> {
  const primary = new pg.Client({ connectionString: servers.primaryUrl });
  await primary.connect();
  try {
    await primary.query('select txid_current()');
  } finally {
    await primary.end();
  }
  await waitFor('a transaction replayed on the standby', async () => {
    const [row] = await queryStandby<{ replayed: boolean }>(
      servers,
      'select pg_last_xact_replay_timestamp() is not null as replayed',
    );
    until(row?.replayed === true, 'none replayed yet');
  });
}

/** Starts the app on the primary with the standby as DATABASE_READ_URL, once its first check put reads there. */
export async function startAppReadingStandby(
  servers: PrimaryWithStandby,
  maxLagSeconds: number,
  options: { worker?: boolean; lagCheckIntervalMs?: number } = {},
) {
  await replayOneTransaction(servers);
  const t = await startTestApp({
    databaseUrl: servers.primaryUrl,
    env: {
      DATABASE_READ_URL: servers.standbyUrl,
      READ_MAX_LAG_SECONDS: String(maxLagSeconds),
      ...TOKENS_ENV,
    },
    lagCheckIntervalMs: options.lagCheckIntervalMs ?? 100,
    worker: options.worker,
  });
  await waitFor('reads on the replica', async () => {
    const replica = await readReplica(t);
    until(replica?.reads_from === 'replica', JSON.stringify(replica));
  });
  return t;
}

export async function readReplica(t: TestApp) {
  const status = await request(t.app).get('/api/status').set(auth);
  expect(status.status).toBe(200);
  return status.body.data.read_replica as {
    reads_from: string;
    lag_s: number | null;
    checked_at: string | null;
    fallback_reason: string | null;
  } | null;
}

export const eventStatus = async (t: TestApp, id: string) =>
  (await request(t.app).get(`/api/events/${id}`).set(auth)).status;

export async function deliver(t: TestApp): Promise<string> {
  const event = paymentEvent();
  expect((await postSigned(t.app, event)).status).toBe(200);
  return event.id;
}

export async function metricsText(t: TestApp): Promise<string> {
  const response = await request(t.app).get('/metrics').set(auth);
  expect(response.status).toBe(200);
  return response.text;
}

export const linesSaying = (t: TestApp, message: string) =>
  t.logLines.filter((line) => (JSON.parse(line) as { msg: string }).msg.startsWith(message));

// promtool ships in Debian's `prometheus` package (scripts/ensure-test-tools.sh); PROMTOOL names another one.
export async function checkWithPromtool(exposition: string) {
  const promtool =
    process.env.PROMTOOL ??
    [...(process.env.PATH ?? '').split(path.delimiter), '.cache/promtool/usr/bin']
      .map((dir) => path.join(dir, 'promtool'))
      .find((candidate) => existsSync(candidate));
  expect(promtool, 'promtool: run scripts/ensure-test-tools.sh').toBeDefined();
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-metrics-'));
  try {
    const file = path.join(dir, 'metrics.txt');
    // Tally's replica metrics only: the rest of the exposition is checked with the dashboards.
    const replicaMetrics = exposition.split('\n').filter((line) => line.includes('tally_read_replica_'));
    expect(replicaMetrics.length).toBeGreaterThanOrEqual(8);
    await writeFile(file, `${replicaMetrics.join('\n')}\n`);
    // `check metrics` reads stdin; the shell hands it the file.
    const { stdout, stderr } = await run('sh', ['-c', `"${promtool}" check metrics < "${file}"`]).catch(
      (err: { stdout: string; stderr: string }) => err,
    );
    expect(`${stdout}${stderr}`.trim()).toBe('');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
