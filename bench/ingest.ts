// npm run bench:ingest [-- SECONDS]: POST /webhooks under full load (wrk, 32 connections cycling signed
// ~1.5 KB payment events, 10 % redeliveries), in interleaved rounds (BENCH_ROUNDS, default 3). Each round
// measures, each on its own fresh database in one embedded Postgres, the baseline and then Tally's three
// deployment shapes, and every ratio is against that round's baseline:
// - baseline: the naive handler (bench/naiveHandler.ts: express, HMAC check, JSON.parse, one single-row
//   insert per request, pool of 20);
// - web alone; web + worker as separate processes (as the Procfile runs them); all-in-one `npm start`.
// After the full load, BENCH_FIXED_RATE requests a second (default 1,000; 0 skips it) from an open-loop
// generator for latency, next to the floor: single-row inserts sent straight to Postgres at that rate.
// BENCH_TOPOLOGY="web" runs only the shapes whose name starts with it (the baseline always runs);
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every process (bench/profileTop.ts reads it);
// BENCH_STATEMENTS=1 writes what each delivery cost Postgres, by statement and table (bench/statementProfile.ts).
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { postmasterPidOf } from './cpuUsage.ts';
import { baselineLatency, type Latency } from './ingestBaseline.ts';
import {
  freshDatabase,
  type Load,
  type Measured,
  measureTopology,
  NAIVE_HANDLER,
  TOPOLOGIES,
} from './ingestTopology.ts';
import { ensureWrk, writeSignedRequests } from './ingestWrk.ts';
import { countArgument, endPool, roundsSetting } from './measure.ts';
import {
  profileStatements,
  STATEMENT_STATISTICS_SETTINGS,
  statementProfileWanted,
} from './statementProfile.ts';

useBigintParser();

const SECONDS = countArgument('SECONDS', 10);
const ROUNDS = roundsSetting(3);
const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE ?? 1000);
const CONNECTIONS = 32;
// Targets of each shape against the naive handler, and of the time until every payment is reconciled.
const TARGETS: Record<string, number> = {
  'web alone': 3,
  'web + worker, 2 processes': 1.5,
  'all-in-one (npm start)': 1.5,
};
const RECONCILED_TARGET_SECONDS = 2;
const log = createLogger('warn');

const ms = ({ p50, p99, max }: Latency) => `p50 ${p50} ms, p99 ${p99} ms, max ${max} ms`;
const percent = (share: number) => `${(100 * share).toFixed(0)} %`;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;

function describe(result: Measured, baseline: number): string[] {
  const { load, acked, tallyCpuShare, machineBusyShare, lag, drainSeconds, reconciledSeconds, fixed } =
    result;
  const drained =
    drainSeconds === null
      ? ''
      : `; ${lag} behind at the end, processed in ${drainSeconds.toFixed(1)} s, every payment reconciled in ${reconciledSeconds?.toFixed(1) ?? '(over 180)'} s`;
  const after = result.behindAfterFixed;
  return [
    `  ${result.topology.name}: ${acked.toFixed(0)} acked/s, ratio ${(acked / baseline).toFixed(2)}, ${load.non2xx} non-2xx, ${load.socketErrors} socket errors${drained}`,
    `    latency p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms; CPU wrk ${percent(load.cpuShare)}, processes ${percent(tallyCpuShare)}, machine ${percent(machineBusyShare)} busy; ${result.cpuPerDeliveryMs.toFixed(2)} ms of CPU (processes and Postgres) a delivery`,
    ...(fixed
      ? [
          `    at ${FIXED_RATE} req/s: ${ms(fixed.latency)}, ${fixed.non2xx} non-2xx${after ? `; then ${after.deliveries} deliveries unprocessed, ${after.payments} payments unreconciled` : ''}`,
        ]
      : []),
  ];
}

ensureWrk();
const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-ingest-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(
  dataDir,
  log,
  statementProfileWanted() ? STATEMENT_STATISTICS_SETTINGS : [],
);
const admin = new pg.Pool({ connectionString: database.connectionString, max: 1 });
try {
  const requestsFile = path.join(dataDir, 'signed-requests.tsv');
  const secret = `whsec_bench_${randomBytes(16).toString('hex')}`;
  // Above what this machine acknowledges, so wrk rarely wraps around to requests it already sent.
  const bodyBytes = await writeSignedRequests(requestsFile, secret, SECONDS * 10_000);
  const postmasterPid = postmasterPidOf(path.join(dataDir, 'postgres'));
  const load: Load = { secret, seconds: SECONDS, connections: CONNECTIONS, requestsFile, postmasterPid };
  const shapes = TOPOLOGIES.filter((topology) => topology.name.startsWith(process.env.BENCH_TOPOLOGY ?? ''));
  const lines = [
    `body ${bodyBytes} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, ${availableParallelism()} cores`,
  ];
  if (FIXED_RATE > 0) {
    const floorUrl = await freshDatabase(admin, database.connectionString, 'bench_floor', log);
    const floor = await baselineLatency(floorUrl, SECONDS, FIXED_RATE);
    lines.push(`floor: single-row inserts straight to Postgres at ${FIXED_RATE}/s: ${ms(floor)}`);
  }
  const ratios = new Map<string, number[]>(shapes.map((shape) => [shape.name, []]));
  const reconciled = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round += 1) {
    const run = async (topology: typeof NAIVE_HANDLER, index: number) => {
      const url = await freshDatabase(admin, database.connectionString, `bench_${round}_${index}`, log);
      if (topology === NAIVE_HANDLER || !statementProfileWanted())
        return measureTopology(topology, url, load, FIXED_RATE > 0 ? FIXED_RATE : null);
      return profileStatements(admin, url, topology.name, () =>
        measureTopology(topology, url, load, FIXED_RATE > 0 ? FIXED_RATE : null),
      );
    };
    const naive = await run(NAIVE_HANDLER, 0);
    lines.push(`round ${round}:`, ...describe(naive, naive.acked));
    for (const [index, shape] of shapes.entries()) {
      const measured = await run(shape, index + 1);
      lines.push(...describe(measured, naive.acked));
      ratios.get(shape.name)?.push(measured.acked / naive.acked);
      if (measured.reconciledSeconds !== null) {
        reconciled.set(shape.name, [...(reconciled.get(shape.name) ?? []), measured.reconciledSeconds]);
      }
    }
  }
  lines.push('against the naive handler (median of the rounds; target):');
  for (const [name, values] of ratios) {
    const seconds = reconciled.get(name);
    const settle = seconds
      ? `; every payment reconciled ${seconds.map((value) => value.toFixed(1)).join(', ')} s after the load (target ≤ ${RECONCILED_TARGET_SECONDS})`
      : '';
    lines.push(
      `  ${name}: ${values.map((value) => value.toFixed(2)).join(', ')} → ${median(values).toFixed(2)} (target ≥ ${TARGETS[name]})${settle}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await endPool(admin);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
