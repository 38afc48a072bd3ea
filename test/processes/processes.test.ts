import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, expect, inject, it } from 'vitest';
import { sign } from '../../src/ingest/signature.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

let databaseUrl: string;
const children: ChildProcess[] = [];
const secret = 'whsec_process_test_0123456789_abcd';

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts a Procfile role as its own process and resolves once it logs `ready`. */
function startRole(role: string, ready: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [`src/processes/${role}.ts`], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      WEBHOOK_SECRETS: secret,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  children.push(child);
  const logFile = path.join(inject('logDir'), `${role}-${child.pid}.log`);
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(line);
        appendFileSync(logFile, `${line}\n`);
        const entry = JSON.parse(line);
        if (entry.msg === ready) resolve(entry);
      }
    });
    child.on('exit', (code) => reject(new Error(`${role} exited ${code}: ${lines.join('\n')}`)));
  });
  return { child, lines, started, exited };
}

it('web and worker run as separate processes: a delivery is stored and projected, SIGTERM stops both cleanly', async () => {
  const web = startRole('web', 'web listening');
  const worker = startRole('worker', 'worker started');
  const { port } = await web.started;
  await worker.started;

  const body = JSON.stringify(paymentEvent());
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(secret, timestamp, body) },
    body,
  });
  expect(response.status).toBe(200);

  // The worker claims the stored delivery from the raw log and projects it.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await waitFor(
      'the worker process to project the delivery',
      async () => {
        const { rows } = await pool.query('select status from events');
        until(rows[0]?.status === 'processed', `status ${rows[0]?.status ?? 'none'}`);
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
  } finally {
    await pool.end();
  }

  web.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  expect(await web.exited).toBe(0);
  expect(await worker.exited).toBe(0);
  expect(web.lines.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
});

it('the web role reads bigint columns as numbers: its status answers a bigint count as an integer, not a string', async () => {
  const token = 'process-test-token-0123456789';
  const web = startRole('web', 'web listening', { API_TOKEN: token });
  const { port } = await web.started;

  const body = JSON.stringify(paymentEvent());
  const timestamp = String(Math.floor(Date.now() / 1000));
  const delivered = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'justifi-timestamp': timestamp, 'justifi-signature': sign(secret, timestamp, body) },
    body,
  });
  expect(delivered.status).toBe(200);

  // No worker runs, so the delivery waits. `purged_bodies` is a bigint (a sum over body_purges), read
  // as stored: without the start-up's bigint parser it would be answered as the string "0".
  const status = await fetch(`http://127.0.0.1:${port}/api/status`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(status.status).toBe(200);
  expect(((await status.json()) as { data: Record<string, unknown> }).data).toMatchObject({
    unprocessed_events: 1,
    purged_bodies: 0,
  });
});
