// npm run bench:ingest [-- SECONDS]: POST /webhooks under full load in three topologies, each on its own fresh
// database in one embedded Postgres: the web role alone; web and worker as separate processes (as the
// Procfile runs them); all-in-one `npm start`. Full load is wrk at 32 connections cycling signed ~1.5 KB
// events (10 % redeliveries); then a fixed 1,000 req/s run (autocannon: wrk has no fixed rate) for latency.
// Same-run baseline: single-row INSERT … ON CONFLICT DO NOTHING of the same kind of bodies from 32
// connections, measured before and after the topologies; ratios are against their mean.
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_TOPOLOGY="web alone" profiles the web role
// (read with `node bench/profileTop.ts FILE`).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { machineCpuSeconds, processCpuSeconds } from './cpuUsage.ts';
import { ensureWrk, runWrk, type WrkResult, writeSignedRequests } from './ingestWrk.ts';
import { endPool } from './measure.ts';

const SECONDS = Number(process.argv[2] ?? 15);
const CONNECTIONS = 32;
// Above what this machine acknowledges, so wrk rarely wraps around to requests it already sent.
const SIGNED_REQUESTS = SECONDS * 8_000;
const SECRET = `whsec_bench_${randomBytes(8).toString('hex')}`;
const log = createLogger('warn');

type Topology = { name: string; roles: string[]; worker: boolean };
const TOPOLOGIES: Topology[] = [
  { name: 'web alone', roles: ['src/processes/web.ts'], worker: false },
  {
    name: 'web + worker, 2 processes',
    roles: ['src/processes/web.ts', 'src/processes/worker.ts'],
    worker: true,
  },
  { name: 'all-in-one (npm start)', roles: ['src/processes/start.ts'], worker: true },
];

type Fixed = { non2xx: number; latency: { p50: number; p99: number; max: number } };

function runFixedRate(url: string, seconds: number, rate: number): Promise<Fixed> {
  return new Promise((resolve, reject) => {
    const args = ['bench/ingestLoad.ts', url, SECRET, String(seconds), String(CONNECTIONS), String(rate)];
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
  await pool.query('create table if not exists baseline (like events including all)');
  await pool.query('truncate baseline');
  const body = JSON.stringify({ padding: 'x'.repeat(1450) });
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

function startRole(role: string, connectionString: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), role],
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
  const ready = role.endsWith('worker.ts') ? '"worker started"' : '"web listening"';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(ready)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${role} exited ${code}`)));
  });
}

async function stopRoles(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(undefined);
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** A fresh, migrated database per run, so no run inherits another's rows or jobs. */
async function freshDatabase(admin: pg.Pool, base: string, name: string): Promise<string> {
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  await release(url.toString(), log);
  return url.toString();
}

type Measured = {
  topology: Topology;
  load: WrkResult;
  tallyCpuShare: number;
  machineBusyShare: number;
  lag: number;
  drainSeconds: number | null;
  fixed: Fixed;
};

async function measure(
  topology: Topology,
  connectionString: string,
  requestsFile: string,
): Promise<Measured> {
  const port = await freePort();
  const children: ChildProcess[] = [];
  const probe = new pg.Pool({ connectionString, max: 1 });
  try {
    for (const role of topology.roles) children.push(await startRole(role, connectionString, port));
    const url = `http://127.0.0.1:${port}`;
    process.stderr.write(`${topology.name}: ${SECONDS} s at ${CONNECTIONS} connections…\n`);
    const tallyCpu = () => children.reduce((sum, child) => sum + processCpuSeconds(child.pid ?? 0), 0);
    const [cpuBefore, machineBefore] = [tallyCpu(), machineCpuSeconds()];
    const load = await runWrk(url, requestsFile, SECONDS, CONNECTIONS);
    const [cpuAfter, machineAfter] = [tallyCpu(), machineCpuSeconds()];
    const waiting = async () =>
      (await probe.query(`select count(*)::int as n from events where status = 'received'`)).rows[0]
        .n as number;
    const lag = await waiting();
    let drainSeconds: number | null = null;
    if (topology.worker) {
      const drainStarted = Date.now();
      while ((await waiting()) > 0 && Date.now() - drainStarted < 180_000)
        await new Promise((resolve) => setTimeout(resolve, 250));
      drainSeconds = (Date.now() - drainStarted) / 1000;
    }
    process.stderr.write(`${topology.name}: ${SECONDS} s at 1,000 req/s…\n`);
    const fixed = await runFixedRate(url, SECONDS, 1000);
    return {
      topology,
      load,
      tallyCpuShare: (cpuAfter - cpuBefore) / (load.seconds * availableParallelism()),
      machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      lag,
      drainSeconds,
      fixed,
    };
  } finally {
    await stopRoles(children);
    await probe.end();
  }
}

function report(results: Measured[], baselines: number[], bodyBytes: number): string {
  const base = baselines.reduce((sum, rate) => sum + rate, 0) / baselines.length;
  const percent = (share: number) => `${(100 * share).toFixed(0)} %`;
  const lines = [
    `body ${bodyBytes} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run, ${availableParallelism()} cores`,
    `baseline INSERT … ON CONFLICT: ${baselines.map((rate) => rate.toFixed(0)).join(' then ')} rows/s (mean ${base.toFixed(0)})`,
  ];
  for (const { topology, load, tallyCpuShare, machineBusyShare, lag, drainSeconds, fixed } of results) {
    const acked = (load.requests - load.non2xx) / load.seconds;
    lines.push(
      `${topology.name}:`,
      `  acknowledged     ${acked.toFixed(0)} events/s, ratio ${(acked / base).toFixed(2)}, ${load.non2xx} non-2xx, ${load.socketErrors} socket errors`,
      `  latency          p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms`,
      `  CPU              wrk ${percent(load.cpuShare)}, Tally ${percent(tallyCpuShare)}, whole machine ${percent(machineBusyShare)} busy`,
      `  worker lag       ${lag} deliveries when the load stopped${drainSeconds === null ? ' (no worker)' : `, drained in ${drainSeconds.toFixed(1)} s`}`,
      `  at 1,000 req/s   p50 ${fixed.latency.p50} ms, p99 ${fixed.latency.p99} ms, max ${fixed.latency.max} ms, ${fixed.non2xx} non-2xx (autocannon)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

ensureWrk();
const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-ingest-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
const admin = new pg.Pool({ connectionString: database.connectionString, max: 1 });
try {
  const requestsFile = path.join(dataDir, 'signed-requests.tsv');
  const bodyBytes = await writeSignedRequests(requestsFile, SECRET, SIGNED_REQUESTS);
  const baselineUrl = await freshDatabase(admin, database.connectionString, 'bench_baseline');
  process.stderr.write(`baseline: ${SECONDS} s of single-row inserts at ${CONNECTIONS} connections…\n`);
  const baselines = [await baseline(baselineUrl, SECONDS)];
  const results: Measured[] = [];
  for (const [index, topology] of TOPOLOGIES.entries()) {
    // BENCH_TOPOLOGY=web runs only the topologies whose name starts with it (a profile of one role).
    if (!topology.name.startsWith(process.env.BENCH_TOPOLOGY ?? '')) continue;
    const url = await freshDatabase(admin, database.connectionString, `bench_topology_${index}`);
    results.push(await measure(topology, url, requestsFile));
  }
  process.stderr.write(`baseline again: ${SECONDS} s…\n`);
  baselines.push(await baseline(baselineUrl, SECONDS));
  process.stdout.write(report(results, baselines, bodyBytes));
} finally {
  await endPool(admin);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
