// npm run bench:year [-- DELIVERIES]: Tally on a year of data against Tally on an empty database.
// 1. A year: 10,000,000 processed deliveries (default) over 365 days, their payments and what the worker
//    wrote for them, generated in Postgres (bench/yearFill.ts), bodies purged as retention leaves them except
//    the last 60 days'. Then, in interleaved rounds (BENCH_ROUNDS, default 3: empty, year, empty, year …),
//    bench:ingest's web + worker load (wrk at full load for BENCH_SECONDS, default 10, then BENCH_FIXED_RATE
//    requests a second, default 1,000): each empty run on a fresh database; the year database is reused, its
//    year rows kept, and each round's requests are signed afresh so that none is a redelivery of an earlier
//    round's. Each round also times the daily report of yesterday and a missed-event sweep of a sub account
//    listing BENCH_SWEEP_PAYMENTS payments (default 2,000) on the year database and on its equivalent: a
//    database holding only the reported day's payments. Then the worker's claim plan on both databases, and
//    with BENCH_EXPLAIN=1 each daily report query's time and plan on both (stderr; bench/yearReport.ts).
// 2. An online migration: `release` of a throwaway no-transaction migration building indexes CONCURRENTLY
//    while the web role takes 200 requests a second, against the same load without one
//    (bench/yearMigration.ts); then the daily report on a streaming standby of the year database against the
//    primary and the day-only database (bench/yearReplica.ts).
// 3. Retention: a month of bodies (received 31 to 60 days ago) purged with a 30-day cutoff while the web role
//    takes BENCH_PURGE_RATE requests a second (default 200) in chunks of BENCH_PURGE_CHUNK_SECONDS (default
//    10) that alternate between the purge running, paced as it paces itself (src/retention/purgePacing.ts),
//    and held (bench/yearPurge.ts); the events table's size before the purge, after it, and after a plain
//    VACUUM.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createSimulator } from '../simulator/server.ts';
import { closeServer, serve } from '../src/api/serve.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { createProviderClient } from '../src/provider/client.ts';
import { postmasterPidOf } from './cpuUsage.ts';
import {
  freshDatabase,
  type Load,
  type Measured,
  measureTopology,
  WEB_AND_WORKER,
} from './ingestTopology.ts';
import { ensureWrk, writeSignedRequests } from './ingestWrk.ts';
import { countArgument, endPool, roundsSetting } from './measure.ts';
import {
  describeSize,
  eventsSize,
  explainClaim,
  seedSweepAccounts,
  timeDailyReport,
  timeSweep,
} from './yearChecks.ts';
import { paymentsCreatedBetween, type YearShape } from './yearFill.ts';
import { fillPaymentRange, fillYear } from './yearGenerate.ts';
import { releaseUnderLoad } from './yearMigration.ts';
import { purgeUnderLoad } from './yearPurge.ts';
import { compareReportOnReplica } from './yearReplica.ts';
import { explainDailyReports } from './yearReport.ts';

useBigintParser();

const DELIVERIES = countArgument('DELIVERIES', 10_000_000);
const ROUNDS = roundsSetting(3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE ?? 1000);
const SWEEP_PAYMENTS = Number(process.env.BENCH_SWEEP_PAYMENTS ?? 2000);
const PURGE_RATE = Number(process.env.BENCH_PURGE_RATE ?? 200);
const PURGE_CHUNK_SECONDS = Number(process.env.BENCH_PURGE_CHUNK_SECONDS ?? 10);
const CONNECTIONS = 32;
const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const log = createLogger('warn');
const out = (line: string) => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const ratio = (value: number) => value.toFixed(2);

ensureWrk();
const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-year-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
const admin = new pg.Pool({ connectionString: database.connectionString, max: 1 });
const simulator = createSimulator({ clientId: 'bench', clientSecret: 'bench-secret' });
const server = await serve(simulator.app, 0);
try {
  const shape: YearShape = {
    deliveries: DELIVERIES,
    now: new Date(),
    keptBodyDays: 2 * RETENTION_DAYS,
    retentionDays: RETENTION_DAYS,
  };
  const yearUrl = await freshDatabase(admin, database.connectionString, 'bench_year', log);
  progress(`filling ${DELIVERIES} deliveries over 365 days…`);
  const fillSeconds = await fillYear(yearUrl, shape);
  out(
    `year: ${2 * Math.floor(DELIVERIES / 2)} deliveries (${Math.floor(DELIVERIES / 2)} payments, bodies of the last ${shape.keptBodyDays} days kept), generated in ${fillSeconds.toFixed(0)} s`,
  );
  out(`  events: ${describeSize(await eventsSize(yearUrl))}`);

  const dayStart = new Date(Math.floor(shape.now.getTime() / DAY_MS) * DAY_MS - DAY_MS);
  const day = dayStart.toISOString().slice(0, 10);
  const equivalentUrl = await freshDatabase(admin, database.connectionString, 'bench_year_day', log);
  const dayPayments = paymentsCreatedBetween(shape, dayStart, new Date(dayStart.getTime() + DAY_MS));
  await fillPaymentRange(equivalentUrl, shape, dayPayments);

  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createProviderClient({ baseUrl, clientId: 'bench', clientSecret: 'bench-secret', log });
  const sweepAccounts = (round: number) => [`acc_sweep_${round}_day`, `acc_sweep_${round}_year`];
  for (let round = 1; round <= ROUNDS; round += 1)
    seedSweepAccounts(simulator, sweepAccounts(round), SWEEP_PAYMENTS);

  const secret = `whsec_bench_${randomBytes(16).toString('hex')}`;
  const requestsFile = path.join(dataDir, 'signed-requests.tsv');
  const load: Load = {
    secret,
    seconds: SECONDS,
    connections: CONNECTIONS,
    requestsFile,
    postmasterPid: postmasterPidOf(path.join(dataDir, 'postgres')),
  };
  // Fresh deliveries for every run: on the reused year database an earlier round's would be redeliveries.
  const measure = async (url: string) => {
    await writeSignedRequests(requestsFile, secret, SECONDS * 10_000);
    return measureTopology(WEB_AND_WORKER, url, load, FIXED_RATE > 0 ? FIXED_RATE : null);
  };
  const describe = (name: string, run: Measured) =>
    `  ${name}: ${run.acked.toFixed(0)} acked/s, ${run.load.non2xx} non-2xx; every payment reconciled ${run.reconciledSeconds?.toFixed(1) ?? '(over 180)'} s after the load` +
    (run.fixed
      ? `; at ${FIXED_RATE}/s p50 ${run.fixed.latency.p50} ms, p99 ${run.fixed.latency.p99} ms`
      : '');
  const ingestRatios: number[] = [];
  const reportRatios: number[] = [];
  const sweepRatios: number[] = [];
  let emptyUrl = '';
  for (let round = 1; round <= ROUNDS; round += 1) {
    emptyUrl = await freshDatabase(admin, database.connectionString, `bench_empty_${round}`, log);
    const empty = await measure(emptyUrl);
    const year = await measure(yearUrl);
    ingestRatios.push(year.acked / empty.acked);
    out(`round ${round}:`);
    out(describe('empty', empty));
    out(describe('year ', year));
    out(`  ingest year/empty: ${ratio(year.acked / empty.acked)} (target ≥ 0.9)`);
    const reportDay = await timeDailyReport(equivalentUrl, log, day);
    const reportYear = await timeDailyReport(yearUrl, log, day);
    reportRatios.push(reportYear / reportDay);
    const [dayAccount, yearAccount] = sweepAccounts(round) as [string, string];
    const sweepDay = await timeSweep(equivalentUrl, log, client, dayAccount);
    const sweepYear = await timeSweep(yearUrl, log, client, yearAccount);
    sweepRatios.push(sweepYear.seconds / sweepDay.seconds);
    out(
      `  daily report of ${day} (${dayPayments[1] - dayPayments[0] + 1} payments): day only ${reportDay.toFixed(2)} s, year ${reportYear.toFixed(2)} s, ratio ${ratio(reportYear / reportDay)} (target ≤ 2)`,
    );
    out(
      `  sweep listing ${sweepYear.listed} payments: day only ${sweepDay.seconds.toFixed(2)} s, year ${sweepYear.seconds.toFixed(2)} s, ratio ${ratio(sweepYear.seconds / sweepDay.seconds)} (target ≤ 2)`,
    );
  }
  out(`ingest year/empty per round: ${ingestRatios.map(ratio).join(', ')} (target ≥ 0.9)`);
  out(`daily report year/day per round: ${reportRatios.map(ratio).join(', ')} (target ≤ 2)`);
  out(`sweep year/day per round: ${sweepRatios.map(ratio).join(', ')} (target ≤ 2)`);

  const emptyPlan = await explainClaim(emptyUrl);
  const yearPlan = await explainClaim(yearUrl);
  const same = emptyPlan.plan === yearPlan.plan;
  out(`claim plan, empty database (round ${ROUNDS}):\n${emptyPlan.plan}`);
  out(`claim plan, year database:\n${yearPlan.plan}`);
  out(
    `claim plans ${same ? 'match' : 'DIFFER'}; uses the partial index on waiting rows: ${/events_to_process_idx/.test(yearPlan.plan) ? 'yes' : 'NO'}`,
  );
  out(`claim run on the year database:\n${yearPlan.analyzed}`);
  if (process.env.BENCH_EXPLAIN === '1')
    await explainDailyReports({ 'day-only': equivalentUrl, year: yearUrl }, log, day);

  await releaseUnderLoad(yearUrl, log, secret, out);
  await compareReportOnReplica({
    yearUrl,
    equivalentUrl,
    primaryDataDir: path.join(dataDir, 'postgres'),
    day,
    log,
    out,
  });

  const cutoff = new Date(shape.now.getTime() - RETENTION_DAYS * DAY_MS);
  const beforePurge = await eventsSize(yearUrl);
  progress(`purging the bodies received ${RETENTION_DAYS + 1} to ${shape.keptBodyDays} days ago under load…`);
  const purge = await purgeUnderLoad(
    yearUrl,
    log,
    { secret, seconds: PURGE_CHUNK_SECONDS, connections: 16, requestsFile: '', postmasterPid: null },
    PURGE_RATE,
    cutoff,
  );
  const afterPurge = await eventsSize(yearUrl);
  const vacuumStarted = performance.now();
  const vacuum = new pg.Client({ connectionString: yearUrl });
  await vacuum.connect();
  await vacuum.query('vacuum events');
  await vacuum.end();
  const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
  const afterVacuum = await eventsSize(yearUrl);
  const p = (fixed: { latency: { p50: number; p99: number } }) =>
    `p50 ${fixed.latency.p50} ms, p99 ${fixed.latency.p99} ms`;
  out(
    `retention: purged ${purge.purged} bodies in ${purge.seconds.toFixed(1)} s (${Math.round(purge.purged / purge.seconds)}/s) while the web role took ${PURGE_RATE} req/s`,
  );
  out(`  paced: ${purge.pacing}`);
  const non2xx = (chunks: { non2xx: number }[]) => chunks.reduce((sum, chunk) => sum + chunk.non2xx, 0);
  out(
    `  without the purge (${purge.without.length} chunks of ${PURGE_CHUNK_SECONDS} s, held between the purge's): ${purge.without.map(p).join('; ')}, ${non2xx(purge.without)} non-2xx`,
  );
  out(
    `  during (${purge.during.length} chunks): ${purge.during.map(p).join('; ')}, ${non2xx(purge.during)} non-2xx`,
  );
  if (purge.ended)
    out(`  the chunk the purge ended in (not counted): ${p(purge.ended)}, ${purge.ended.non2xx} non-2xx`);
  out(
    `  p99 during/without: ${ratio(purge.p99Ratio)}, worst chunk ${ratio(purge.worstChunkRatio)} (target ≤ 1.5)`,
  );
  out(`  events before the purge: ${describeSize(beforePurge)}`);
  out(`  events after the purge:  ${describeSize(afterPurge)}`);
  out(`  events after VACUUM (${vacuumSeconds.toFixed(1)} s): ${describeSize(afterVacuum)}`);
} finally {
  await closeServer(server);
  await endPool(admin);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
