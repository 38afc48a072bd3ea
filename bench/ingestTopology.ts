// Runs one deployment shape of Tally (or the naive handler) under the ingest load and measures it: shared by
// `npm run bench:ingest` and the benches that put the same load on a larger database.
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { freePort } from '../src/db/embedded.ts';
import type { Logger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { machineCpuSeconds, postgresCpuSeconds, processCpuSeconds } from './cpuUsage.ts';
import type { Latency } from './ingestBaseline.ts';
import { runWrk, type WrkResult } from './ingestWrk.ts';

/** The processes one deployment runs (each a script taking DATABASE_URL, WEBHOOK_SECRETS and PORT). */
export type Topology = { name: string; roles: string[]; worker: boolean };

export const NAIVE_HANDLER: Topology = {
  name: 'naive handler',
  roles: ['bench/naiveHandler.ts'],
  worker: false,
};
export const WEB_AND_WORKER: Topology = {
  name: 'web + worker, 2 processes',
  roles: ['src/processes/web.ts', 'src/processes/worker.ts'],
  worker: true,
};
export const TOPOLOGIES: Topology[] = [
  { name: 'web alone', roles: ['src/processes/web.ts'], worker: false },
  WEB_AND_WORKER,
  { name: 'all-in-one (npm start)', roles: ['src/processes/start.ts'], worker: true },
];

export type Load = {
  secret: string;
  seconds: number;
  connections: number;
  requestsFile: string;
  /** The server's postmaster, for the CPU it spends on a run (`cpuPerDeliveryMs`); null: not counted. */
  postmasterPid: number | null;
};
export type Fixed = { non2xx: number; latency: Latency; cpuShare: number };

export type Measured = {
  topology: Topology;
  load: WrkResult;
  /** Acknowledged (2xx) deliveries a second under full load. */
  acked: number;
  tallyCpuShare: number;
  machineBusyShare: number;
  lag: number;
  drainSeconds: number | null;
  /** From the end of the load until every payment was reconciled on its newest state. */
  reconciledSeconds: number | null;
  /**
   * CPU milliseconds Tally's processes and Postgres spent per stored delivery, from the start of the load until
   * every payment was reconciled: what decides throughput on a busy machine, and far steadier than a rate there.
   */
  cpuPerDeliveryMs: number;
  fixed: Fixed | null;
  /** Deliveries not yet processed and payments not yet reconciled when the 1,000 req/s run ended. */
  behindAfterFixed: { deliveries: number; payments: number } | null;
};

/**
 * The open-loop generator (bench/ingestLoad.ts) at `rate` requests a second; with `timeline`, its answer also
 * lists each request's scheduled time (ms since the epoch) and latency.
 */
export function runFixedRate(url: string, load: Load, rate: number, timeline = false): Promise<Fixed> {
  return new Promise((resolve, reject) => {
    const { secret, seconds, connections } = load;
    const args = ['bench/ingestLoad.ts', url, secret, String(seconds), String(connections), String(rate)];
    if (timeline) args.push('timeline');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`)),
    );
  });
}

/** Starts one role and resolves once it logs that it is ready. BENCH_NODE_ARGS go to node (a CPU profile). */
export function startRole(role: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), role],
    {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = role.endsWith('worker.ts')
    ? '"worker started"'
    : role.endsWith('clock.ts')
      ? '"clock started"'
      : '"web listening"';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(ready)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${role} exited ${code}`)));
  });
}

export async function stopRoles(children: ChildProcess[]): Promise<void> {
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

/** A fresh, migrated database, so no run inherits another's rows or jobs. */
export async function freshDatabase(
  admin: pg.Pool,
  base: string,
  name: string,
  log: Logger,
): Promise<string> {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  await release(url.toString(), log);
  return url.toString();
}

/**
 * Starts the topology's processes on `connectionString`, puts the full load on them (wrk), waits until the
 * worker has processed every delivery and reconciled every payment (up to 180 s), then, when `fixedRate` is
 * given, runs the open-loop generator at that rate for latency. Stops the processes.
 */
export async function measureTopology(
  topology: Topology,
  connectionString: string,
  load: Load,
  fixedRate: number | null,
): Promise<Measured> {
  const port = await freePort();
  const children: ChildProcess[] = [];
  const probe = new pg.Pool({ connectionString, max: 1 });
  const env = { DATABASE_URL: connectionString, WEBHOOK_SECRETS: load.secret, PORT: String(port) };
  try {
    for (const role of topology.roles) children.push(await startRole(role, env));
    const url = `http://127.0.0.1:${port}`;
    process.stderr.write(`${topology.name}: ${load.seconds} s at ${load.connections} connections…\n`);
    const tallyCpu = () => children.reduce((sum, child) => sum + processCpuSeconds(child.pid ?? 0), 0);
    const [cpuBefore, machineBefore] = [tallyCpu(), machineCpuSeconds()];
    const serverCpu = () => (load.postmasterPid === null ? 0 : postgresCpuSeconds(load.postmasterPid));
    const serverBefore = serverCpu();
    const loadStarted = new Date();
    const result = await runWrk(url, load.requestsFile, load.seconds, load.connections);
    const [cpuAfter, machineAfter] = [tallyCpu(), machineCpuSeconds()];
    const behind = async () =>
      (
        await probe.query<{ deliveries: number; payments: number }>(
          `select (select count(*) from events where status = 'received')::int as deliveries,
                  (select count(*) from payment_reconciliation_states where unreconciled_since is not null)::int
                    as payments`,
        )
      ).rows[0] as { deliveries: number; payments: number };
    const lag = topology.worker ? (await behind()).deliveries : 0;
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
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const spent = tallyCpu() - cpuBefore + serverCpu() - serverBefore;
    // Stored by this run (a database with a year of data holds many more), through the arrival-time index.
    const table = topology === NAIVE_HANDLER ? 'naive_events' : 'events';
    const stored = await probe.query<{ n: number }>(
      `select count(*)::int as n from ${table} where received_at >= $1::timestamptz`,
      [loadStarted],
    );
    const deliveries = stored.rows[0]?.n ?? 0;
    let fixed: Fixed | null = null;
    if (fixedRate !== null) {
      process.stderr.write(`${topology.name}: ${load.seconds} s at ${fixedRate} req/s…\n`);
      fixed = await runFixedRate(url, load, fixedRate);
    }
    return {
      topology,
      load: result,
      acked: (result.requests - result.non2xx) / result.seconds,
      tallyCpuShare: (cpuAfter - cpuBefore) / (result.seconds * availableParallelism()),
      machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      lag,
      drainSeconds,
      reconciledSeconds,
      cpuPerDeliveryMs: (1000 * spent) / Math.max(deliveries, 1),
      fixed,
      behindAfterFixed: topology.worker && fixed ? await behind() : null,
    };
  } finally {
    await stopRoles(children);
    await probe.end();
  }
}
