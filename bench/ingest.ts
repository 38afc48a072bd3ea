// npm run bench:ingest [-- SECONDS]: POST /webhooks under full load in three topologies, each on its own fresh
// database in one embedded Postgres: the web role alone; web and worker as separate processes (as the
// Procfile runs them); all-in-one `npm start`. Full load is wrk at 32 connections cycling signed ~1.5 KB
// events (10 % redeliveries); then a fixed 1,000 req/s run (bench/ingestLoad.ts, open loop) for latency.
// Same-run baselines: single-row INSERT … ON CONFLICT DO NOTHING of the same kind of bodies from 32
// connections, measured before and after the topologies (ratios are against their mean); and the latency of
// such inserts sent straight to Postgres at 1,000 a second, the floor under any webhook's ack latency.
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_TOPOLOGY="web alone" profiles the web role
// (read with `node bench/profileTop.ts FILE`).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { machineCpuSeconds, processCpuSeconds } from './cpuUsage.ts';
import { baseline, baselineLatency, type Latency } from './ingestBaseline.ts';
import { ensureWrk, runWrk, type WrkResult, writeSignedRequests } from './ingestWrk.ts';
import { countArgument, endPool } from './measure.ts';

const SECONDS = countArgument('SECONDS', 15);
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

type Fixed = { non2xx: number; latency: Latency; cpuShare: number };

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
  /** From the end of the load until every payment was reconciled on its newest state. */
  reconciledSeconds: number | null;
  fixed: Fixed;
  /** Deliveries not yet processed and payments not yet reconciled when the 1,000 req/s run ended. */
  behindAfterFixed: { deliveries: number; payments: number } | null;
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
    const behind = async () =>
      (
        await probe.query<{ deliveries: number; payments: number }>(
          `select (select count(*) from events where status = 'received')::int as deliveries,
                  (select count(*) from payment_reconciliation_states where unreconciled_since is not null)::int
                    as payments`,
        )
      ).rows[0] as { deliveries: number; payments: number };
    const lag = (await behind()).deliveries;
    const loadEnded = Date.now();
    let drainSeconds: number | null = null;
    let reconciledSeconds: number | null = null;
    while (topology.worker && Date.now() - loadEnded < 180_000) {
      const { deliveries, payments } = await behind();
      if (deliveries === 0) drainSeconds ??= (Date.now() - loadEnded) / 1000;
      if (deliveries === 0 && payments === 0) {
        reconciledSeconds = (Date.now() - loadEnded) / 1000;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    process.stderr.write(`${topology.name}: ${SECONDS} s at 1,000 req/s…\n`);
    const fixed = await runFixedRate(url, SECONDS, 1000);
    const behindAfterFixed = topology.worker ? await behind() : null;
    return {
      topology,
      load,
      tallyCpuShare: (cpuAfter - cpuBefore) / (load.seconds * availableParallelism()),
      machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      lag,
      drainSeconds,
      reconciledSeconds,
      fixed,
      behindAfterFixed,
    };
  } finally {
    await stopRoles(children);
    await probe.end();
  }
}

type Baselines = { rates: number[]; floors: Latency[] };

function report(results: Measured[], baselines: Baselines, bodyBytes: number): string {
  const base = baselines.rates.reduce((sum, rate) => sum + rate, 0) / baselines.rates.length;
  const percent = (share: number) => `${(100 * share).toFixed(0)} %`;
  const latency = ({ p50, p99, max }: Latency) => `p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`;
  const lines = [
    `body ${bodyBytes} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run, ${availableParallelism()} cores`,
    `baseline INSERT … ON CONFLICT: ${baselines.rates.map((rate) => rate.toFixed(0)).join(' then ')} rows/s (mean ${base.toFixed(0)})`,
    `floor: the same INSERT straight to Postgres at 1,000/s: ${baselines.floors.map(latency).join(' then ')}`,
  ];
  for (const result of results) {
    const { topology, load, tallyCpuShare, machineBusyShare, lag, drainSeconds, reconciledSeconds, fixed } =
      result;
    const acked = (load.requests - load.non2xx) / load.seconds;
    const drained =
      drainSeconds === null
        ? ' (no worker)'
        : `, processed in ${drainSeconds.toFixed(1)} s, every payment reconciled in ${reconciledSeconds?.toFixed(1) ?? '(over 180)'} s`;
    const after = result.behindAfterFixed;
    lines.push(
      `${topology.name}:`,
      `  acknowledged     ${acked.toFixed(0)} events/s, ratio ${(acked / base).toFixed(2)}, ${load.non2xx} non-2xx, ${load.socketErrors} socket errors`,
      `  latency          p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms`,
      `  CPU              wrk ${percent(load.cpuShare)}, Tally ${percent(tallyCpuShare)}, whole machine ${percent(machineBusyShare)} busy`,
      `  worker lag       ${lag} deliveries when the load stopped${drained}`,
      `  at 1,000 req/s   ${latency(fixed.latency)}, ${fixed.non2xx} non-2xx (generator ${percent(fixed.cpuShare)} CPU)${
        after
          ? `; then ${after.deliveries} deliveries unprocessed, ${after.payments} payments unreconciled`
          : ''
      }`,
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
  const baselines: Baselines = { rates: [await baseline(baselineUrl, SECONDS)], floors: [] };
  baselines.floors.push(await baselineLatency(baselineUrl, SECONDS, 1000));
  const results: Measured[] = [];
  for (const [index, topology] of TOPOLOGIES.entries()) {
    // BENCH_TOPOLOGY=web runs only the topologies whose name starts with it (a profile of one role).
    if (!topology.name.startsWith(process.env.BENCH_TOPOLOGY ?? '')) continue;
    const url = await freshDatabase(admin, database.connectionString, `bench_topology_${index}`);
    results.push(await measure(topology, url, requestsFile));
  }
  process.stderr.write(`baseline again: ${SECONDS} s…\n`);
  baselines.rates.push(await baseline(baselineUrl, SECONDS));
  baselines.floors.push(await baselineLatency(baselineUrl, SECONDS, 1000));
  process.stdout.write(report(results, baselines, bodyBytes));
} finally {
  await endPool(admin);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
