// npm run bench:ingest [-- SECONDS]: Tally (web + worker, one process) on a fresh Postgres, driven by a
// separate load process at 32 connections with signed ~1.4 KB events (10 % redeliveries); then a fixed
// 1,000 req/s run for latency. Same-run baseline: single-row INSERT … ON CONFLICT DO NOTHING of the same
// kind of bodies from 32 connections. Prints throughput, latency, the ratio, and the worker's lag.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';

const SECONDS = Number(process.argv[2] ?? 20);
const CONNECTIONS = 32;
const SECRET = `whsec_bench_${randomBytes(8).toString('hex')}`;
const log = createLogger('warn');

type Load = {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  latency: { p50: number; p99: number; max: number };
  bodyBytes: number;
};

function runLoad(url: string, seconds: number, rate?: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const args = [
      'bench/ingestLoad.ts',
      url,
      SECRET,
      String(seconds),
      String(CONNECTIONS),
      ...(rate ? [String(rate)] : []),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`)),
    );
  });
}

async function baseline(connectionString: string, seconds: number): Promise<number> {
  const pool = new pg.Pool({ connectionString, max: CONNECTIONS });
  await pool.query('create table baseline (like events including all)');
  const body = JSON.stringify({ padding: 'x'.repeat(1350) });
  let rows = 0;
  let next = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        // 10 % redeliveries, like the load.
        const n = Math.random() < 0.1 && next > 0 ? Math.floor(Math.random() * next) : next++;
        const raw = `${body}${n}`;
        await pool.query(
          `insert into baseline (event_id, event_name, account_id, account_type, headers, raw_body, body_sha256, body, received_at)
           values ($1, 'payment.succeeded', 'acc', 'live', '{}', $2, $3, $4, now()) on conflict do nothing`,
          [`evt_${n}`, Buffer.from(raw), createHash('sha256').update(raw).digest(), JSON.stringify({ raw })],
        );
        rows += 1;
      }
    }),
  );
  await pool.end();
  return rows / seconds;
}

async function startTally(connectionString: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      process.env.BENCH_ROLE ?? 'src/processes/start.ts',
    ],
    {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: connectionString,
        WEBHOOK_SECRETS: SECRET,
        PORT: String(port),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"web listening"')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`tally exited ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-ingest-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(dataDir, log);
const probe = new pg.Pool({ connectionString: database.connectionString, max: 1 });
let tally: ChildProcess | null = null;
try {
  await release(database.connectionString, log);
  process.stderr.write(`baseline: ${SECONDS} s of single-row inserts at ${CONNECTIONS} connections…\n`);
  const baselineRate = await baseline(database.connectionString, SECONDS);
  const started = await startTally(database.connectionString);
  tally = started.child;
  process.stderr.write(`load: ${SECONDS} s at ${CONNECTIONS} connections…\n`);
  const load = await runLoad(started.url, SECONDS);
  process.stderr.write(`  ${JSON.stringify(load)}\n`);
  const waiting = async () =>
    (await probe.query(`select count(*)::int as n from events where status = 'received'`)).rows[0]
      .n as number;
  const lag = await waiting();
  const drainStarted = Date.now();
  while ((await waiting()) > 0 && Date.now() - drainStarted < 120_000)
    await new Promise((resolve) => setTimeout(resolve, 250));
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  process.stderr.write(`fixed rate: ${SECONDS} s at 1,000 req/s…\n`);
  const fixed = await runLoad(started.url, SECONDS, 1000);
  const accepted = load.ok / load.seconds;
  process.stdout.write(
    `body ${load.bodyBytes} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run\n` +
      `baseline INSERT … ON CONFLICT:  ${baselineRate.toFixed(0)} rows/s\n` +
      `POST /webhooks acknowledged:    ${accepted.toFixed(0)} events/s (ratio ${(accepted / baselineRate).toFixed(2)}; target ≥ 1.5), ${load.non2xx} non-2xx, ${load.errors} errors\n` +
      `ack latency at full load:       p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms, max ${load.latency.max} ms\n` +
      `worker lag when load stopped:   ${lag} deliveries, drained in ${drainSeconds.toFixed(1)} s\n` +
      `at 1,000 req/s:                 p50 ${fixed.latency.p50} ms, p99 ${fixed.latency.p99} ms (target ≤ 10 ms), max ${fixed.latency.max} ms, ${fixed.non2xx} non-2xx\n`,
  );
} finally {
  tally?.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await probe.end();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
