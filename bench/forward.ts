// npm run bench:forward [-- N]: forwarding's cost and lag, with one subscription to a fast local receiver.
// 1. Throughput: the worker's loops (projection, sequencing, forwarding, as the worker starts them) project N
//    stored deliveries without a subscription, then, each on a fresh database, with one subscription to a fast
//    receiver, and the projection alone (no feed at all). Interleaved over BENCH_ROUNDS (default 4); each
//    round's ratio is against its own baseline, and the median of the rounds is the figure; the two compared
//    swap places from one round to the next. Each round also says how many changes went out while the
//    projection ran, and how long after it the receiver had them all.
// 2. Lag and memory: deliveries stored at BENCH_RATE a second (default 500) for BENCH_SECONDS (default 600),
//    projected and forwarded by the worker's loops: the p50/p99 time from a change's commit to its arrival,
//    and the process's heap, first minute to last.
// Changes come from the projections' outbox when it appends them; where it does not, the bench appends one
// change per delivery itself (said in the output), so forwarding has the same work either way.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jobs } from '../jobs/index.ts';
import { sequenceChanges } from '../src/changes/sequenceChanges.ts';
import { startChangeSequencing } from '../src/changes/sequencingLoop.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, type Pool, useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { startWorkerLoops } from '../src/processes/worker.ts';
import { startEventProcessing } from '../src/projection/processingLoop.ts';
import { type Boss, createBoss } from '../src/queue/boss.ts';
import { createQueues } from '../src/queue/job.ts';
import { startForwarding } from '../src/subscriptions/forwardChanges.ts';
import { createSubscription } from '../src/subscriptions/manageSubscriptions.ts';
import { appendChanges, percentile, startFastReceiver, storeDeliveries } from './forwardLoad.ts';
import { countArgument, endPool, roundsSetting, untilProjected } from './measure.ts';
import {
  STATEMENT_STATISTICS_SETTINGS,
  startStatementProfile,
  statementProfileWanted,
} from './statementProfile.ts';

useBigintParser();
const N = countArgument('N', 20_000);
const ROUNDS = roundsSetting(4);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 600);
const log = createLogger('warn');
const config = Object.freeze({ FORWARD_CONCURRENCY: 16, ALERT_DIGEST_MINUTES: undefined });

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-forward-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(
  dataDir,
  log,
  statementProfileWanted() ? STATEMENT_STATISTICS_SETTINGS : [],
);
const server = database.connectionString.replace(/\/postgres$/, '');
let databases = 0;
/** A fresh migrated database (cloned from the first one migrated). */
async function freshDatabase(admin: Pool): Promise<string> {
  databases += 1;
  await admin.query(`create database bench_${databases} template bench_template`);
  return `${server}/bench_${databases}`;
}

/** Whether projecting a delivery appends its change (the projections' outbox), tried on one delivery. */
async function outboxAppends(admin: Pool): Promise<boolean> {
  const url = await freshDatabase(admin);
  const pool = createPool(url, log, 4);
  const boss = createBoss(url, log, { max: 2 });
  await boss.start();
  await createQueues(boss, jobs);
  await storeDeliveries(pool, 1, 'probe');
  const stop = startEventProcessing({ pool, boss, log });
  await untilProjected(pool);
  await stop();
  const appended = (await pool.query(`select count(*)::int as n from changes`)).rows[0].n > 0;
  await boss.stop({ graceful: true, timeout: 20_000 });
  await endPool(pool);
  return appended;
}

/**
 * Projects N deliveries: events a second, and the changes forwarded meanwhile. `projection`: the projection
 * alone; `worker`: the worker's loops as it runs them (startWorkerLoops: changes numbered, forwarding giving
 * way to the projection's backlog), no subscription; `forwarding`: the same with one subscription to a fast
 * receiver, and then how long after the projection the receiver had every change.
 */
async function projectionRun(admin: Pool, mode: 'projection' | 'worker' | 'forwarding', outbox: boolean) {
  const url = await freshDatabase(admin);
  const pool = createPool(url, log, 12);
  const boss = createBoss(url, log, { max: 4 });
  await boss.start();
  await createQueues(boss, jobs);
  await storeDeliveries(pool, N, 'fwd');
  // Without the outbox, the change each delivery would have appended, committed up front: forwarding sends
  // them flat out while the worker projects (with the outbox they come as the projection goes).
  if (!outbox) await appendChanges(pool, 0, N, N);
  const receiver = await startFastReceiver();
  if (mode === 'forwarding') await createSubscription(pool, { url: receiver.url });
  const started = performance.now();
  const { workerLog, described } = givingWayLog();
  const stop =
    mode === 'projection'
      ? startEventProcessing({ pool, boss, log })
      : startWorkerLoops({ pool, boss, log: workerLog, config });
  await untilProjected(pool);
  const seconds = (performance.now() - started) / 1000;
  const forwarded = receiver.arrivals();
  const changes = (await pool.query(`select count(*)::int as n from changes`)).rows[0].n;
  while (mode === 'forwarding' && receiver.arrivals() < changes) await sleep(20);
  const caughtUp = (performance.now() - started) / 1000 - seconds;
  await stop();
  await receiver.close();
  await boss.stop({ graceful: true, timeout: 20_000 });
  await endPool(pool);
  return { rate: N / seconds, forwarded, changes, caughtUp, gaveWay: described() };
}

/**
 * Stores RATE deliveries a second for SECONDS, projected and forwarded by the worker's loops (with the outbox;
 * without it, RATE changes a second appended and forwarded): lag from a change's commit to its arrival, and
 * the heap.
 */
async function steadyRun(admin: Pool, outbox: boolean) {
  const url = await freshDatabase(admin);
  const pool = createPool(url, log, 12);
  const boss = createBoss(url, log, { max: 4 });
  await boss.start();
  await createQueues(boss, jobs);
  const receiver = await startFastReceiver(Math.ceil(RATE * SECONDS) + RATE);
  await createSubscription(pool, { url: receiver.url });
  // BENCH_STATEMENTS=1: what each forwarded change cost Postgres, by statement (bench/statementProfile.ts).
  const profilePool = statementProfileWanted() ? createPool(url, log, 1) : null;
  const finishProfile = profilePool
    ? await startStatementProfile(profilePool, profilePool, 'the worker (a "delivery" is one stored)')
    : null;
  const { workerLog, described } = givingWayLog();
  const stopLoops = outbox
    ? startWorkerLoops({ pool, boss, log: workerLog, config })
    : startChangeSequencingAndForwarding(pool, boss);
  const heap: { at: number; used: number }[] = [];
  const started = Date.now();
  const perTick = RATE / 10;
  const objects = 5000;
  let appended = 0;
  for (let tick = 0; Date.now() - started < SECONDS * 1000; tick += 1) {
    const due = started + tick * 100;
    if (due > Date.now()) await sleep(due - Date.now());
    if (outbox) await storeDeliveries(pool, perTick, `steady${tick}`);
    else await appendChanges(pool, appended, perTick, objects);
    appended += perTick;
    if (tick % 100 === 0) {
      globalThis.gc?.();
      heap.push({ at: (Date.now() - started) / 1000, used: process.memoryUsage().heapUsed });
    }
  }
  await untilProjected(pool);
  await sequenceChanges(pool);
  const last = await pool.query(`select max(seq) as seq from changes`);
  while (receiver.arrivedAt(last.rows[0].seq) === 0) await sleep(100);
  await stopLoops();
  const { rows } = await pool.query<{ seq: number; recorded_at: Date }>(
    `select seq, recorded_at from changes`,
  );
  const lags = rows.map(
    (row) => ((receiver.arrivedAt(row.seq) || Date.now()) - row.recorded_at.getTime()) / 1000,
  );
  await receiver.close();
  await boss.stop({ graceful: true, timeout: 20_000 });
  await endPool(pool);
  if (profilePool && finishProfile) {
    await finishProfile(appended);
    await endPool(profilePool);
  }
  const delivered = rows.filter((row) => receiver.arrivedAt(row.seq) > 0).length;
  return { appended, delivered, seconds: (Date.now() - started) / 1000, lags, heap, gaveWay: described() };
}

/**
 * The worker loops' logger: warnings and errors on stderr, as the bench's own, and the stretches forwarding
 * gave way to the projection (their "resumes" lines), in seconds.
 */
function givingWayLog() {
  const stretches: number[] = [];
  const workerLog = createLogger('info', {
    write(line: string) {
      const entry = JSON.parse(line) as { level: number; waitedSeconds?: number };
      if (entry.waitedSeconds !== undefined) stretches.push(entry.waitedSeconds);
      else if (entry.level >= 40) process.stderr.write(line);
    },
  });
  const described = () =>
    `forwarding gave way ${stretches.length} times, ${stretches.reduce((sum, s) => sum + s, 0).toFixed(1)} s in all, ` +
    `the longest ${stretches.reduce((most, s) => Math.max(most, s), 0).toFixed(1)} s`;
  return { workerLog, described };
}

/** Without the outbox there is no projection to give way to: numbering and forwarding alone. */
function startChangeSequencingAndForwarding(pool: Pool, boss: Boss) {
  const stopSequencing = startChangeSequencing({ pool, log });
  const stopForwarding = startForwarding({ pool, boss, log, config });
  return async () => {
    await stopSequencing();
    await stopForwarding();
  };
}

try {
  const admin = createPool(`${server}/postgres`, log, 2);
  await admin.query('create database bench_template');
  await release(`${server}/bench_template`, log);
  const outbox = await outboxAppends(admin);
  const ratios: number[] = [];
  const toProjection: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    // The two compared go first in turn: the first run of a round was measured up to a tenth slower than the
    // second on this machine, so an even number of rounds gives each order the same weight.
    const firstWorker = round % 2 === 1;
    const before = firstWorker ? await projectionRun(admin, 'worker', outbox) : null;
    const withForwarding = await projectionRun(admin, 'forwarding', outbox);
    const worker = before ?? (await projectionRun(admin, 'worker', outbox));
    const projection = await projectionRun(admin, 'projection', outbox);
    ratios.push(withForwarding.rate / worker.rate);
    toProjection.push(withForwarding.rate / projection.rate);
    process.stdout.write(
      `round ${round}: ${N} deliveries projected, by the worker without a subscription ${worker.rate.toFixed(0)}/s, ` +
        `with one ${withForwarding.rate.toFixed(0)}/s (${withForwarding.forwarded} of ${withForwarding.changes} changes forwarded meanwhile, ` +
        `all ${withForwarding.caughtUp.toFixed(1)} s after the projection; ${withForwarding.gaveWay}; changes from ${outbox ? 'the outbox' : 'the bench, no outbox'}), ` +
        `the projection alone ${projection.rate.toFixed(0)}/s; with forwarding / without ${ratios.at(-1)?.toFixed(2)}, ` +
        `/ projection alone ${toProjection.at(-1)?.toFixed(2)}\n`,
    );
  }
  if (ROUNDS > 0)
    process.stdout.write(
      `throughput with forwarding / without: median ${percentile(ratios, 0.5).toFixed(2)} of ${ROUNDS} rounds ` +
        `(${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}); / the projection alone: median ${percentile(toProjection, 0.5).toFixed(2)}\n`,
    );
  const steady = await steadyRun(admin, outbox);
  const firstMinute = steady.heap.filter((sample) => sample.at >= 10 && sample.at < 70);
  // Minutes of the appending, not of the wait for the last arrival after it.
  const lastMinute = steady.heap.filter((sample) => sample.at >= SECONDS - 60);
  const mean = (samples: { used: number }[]) =>
    samples.reduce((sum, s) => sum + s.used, 0) / Math.max(1, samples.length);
  process.stdout.write(
    `steady: ${steady.appended} ${outbox ? 'deliveries' : 'changes'} at ${RATE}/s for ${SECONDS} s, ${steady.delivered} delivered; ` +
      `lag p50 ${percentile(steady.lags, 0.5).toFixed(2)} s, p99 ${percentile(steady.lags, 0.99).toFixed(2)} s, max ${steady.lags.reduce((most, lag) => Math.max(most, lag), 0).toFixed(2)} s; ${steady.gaveWay}\n` +
      `heap: ${steady.heap.map((sample) => `${sample.at.toFixed(0)}s ${(sample.used / 2 ** 20).toFixed(0)}MiB`).join(', ')}\n` +
      (firstMinute.length && lastMinute.length
        ? `heap last minute / first minute: ${(mean(lastMinute) / mean(firstMinute)).toFixed(2)}\n`
        : 'heap: too short a run to compare minutes\n'),
  );
  await endPool(admin);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
