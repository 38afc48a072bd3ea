// npm run bench:payouts [-- PAYOUTS]: one sub account whose API shows 1,000 paid payouts (default) of 1,000
// lines each (BENCH_PAYOUT_LINES), every line's payment known to Tally, against the provider simulator in the
// same process. Three phases, as the jobs run them: the payout sync (syncAccountPayouts, the real client over
// HTTP), the projection of what it stored (the worker's processing loop until the raw log is drained), and
// the judgement of every payout (reconcilePayouts, 100 payouts a call, as reconcile-payouts jobs are cut).
// Prints each phase's time and peak RSS next to a same-run baseline: paging every payout page and every line
// page with the same client, storing nothing.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jobs } from '../jobs/index.ts';
import { createSimulator } from '../simulator/server.ts';
import { closeServer, serve } from '../src/api/serve.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, type Pool, useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { reconcilePayouts } from '../src/payouts/reconcilePayouts.ts';
import { syncAccountPayouts } from '../src/payouts/syncPayouts.ts';
import { release } from '../src/processes/release.ts';
import { startEventProcessing } from '../src/projection/processingLoop.ts';
import { createProviderClient } from '../src/provider/client.ts';
import { createBoss } from '../src/queue/boss.ts';
import { createQueues } from '../src/queue/job.ts';
import { readApiObject, snapshotOf } from '../src/sweep/compareSnapshot.ts';
import { insertApiSnapshots } from '../src/sweep/queries.ts';
import { countArgument, endPool, sampleRss, timed, untilProjected } from './measure.ts';
import { generatePayouts, linesPerPayout } from './payoutFixtures.ts';

useBigintParser();

const PAYOUTS = countArgument('PAYOUTS', 1000);
const LINES = linesPerPayout();
const PAYOUTS_PER_JUDGEMENT = 100;
const ACCOUNT = 'acc_bench';
const log = createLogger('warn');
const rss = sampleRss();
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const seconds = (value: number) => Number(value.toFixed(2));
const count = async (pool: Pool, sql: string) => (await pool.query<{ n: number }>(sql)).rows[0]?.n ?? 0;

const simulator = createSimulator({ clientId: 'bench', clientSecret: 'bench-secret' });
const now = Date.now();
const generated = generatePayouts(simulator, ACCOUNT, { payouts: PAYOUTS, lines: LINES, now });
const server = await serve(simulator.app, 0);
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = createProviderClient({ baseUrl, clientId: 'bench', clientSecret: 'bench-secret', log });
const since = new Date(now - 30 * 24 * 3600_000);

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-payouts-'));
await chmod(dataDir, 0o777);
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const config = loadConfig({
    DATABASE_URL: database.connectionString,
    API_TOKEN: 'bench-admin-token-0123456789',
    WEBHOOK_SECRETS: 'whsec_bench_0123456789_abcdefghijkl',
  });
  const pool = createPool(database.connectionString, log, 6);
  const boss = createBoss(database.connectionString, log, { max: 2 });
  await boss.start();
  await createQueues(boss, jobs);
  // The projection's own loop, as the worker runs it; jobs it enqueues wait unworked (only phases are timed).
  const drain = async () => {
    const stop = startEventProcessing({ pool, boss, log });
    await untilProjected(pool, 100);
    await stop();
  };

  // Setup, untimed: the payments the lines name, known to Tally as the missed-event sweep stores them.
  const fetchedAt = new Date();
  for (let start = 0; start < generated.payments.length; start += 1000)
    await insertApiSnapshots(
      pool,
      generated.payments.slice(start, start + 1000).map((payment) =>
        snapshotOf('payments', readApiObject(payment), {
          accountId: ACCOUNT,
          accountType: 'live',
          fetchedAt,
        }),
      ),
    );
  const [, setupSeconds] = await timed(`setup: project ${generated.payments.length} payments`, drain);

  const [paged, pagingSeconds] = await timed(
    `baseline: page ${PAYOUTS} payouts and their lines`,
    async () => {
      let payouts = 0;
      let lines = 0;
      for await (const page of client.payoutPages(ACCOUNT, { createdAfter: since }))
        for (const payout of page) {
          payouts += 1;
          for await (const linePage of client.balanceTransactionPages((payout as { id: string }).id, ACCOUNT))
            lines += linePage.length;
        }
      return { payouts, lines };
    },
  );
  const rssBefore = rss.peak();

  rss.reset();
  const [synced, syncSeconds] = await timed('sync', () =>
    syncAccountPayouts({ pool, client, log, now: () => new Date() }, ACCOUNT, since),
  );
  const syncRss = rss.peak();

  rss.reset();
  const [, projectionSeconds] = await timed('projection', drain);
  const projectionRss = rss.peak();

  rss.reset();
  const payoutIds = (await pool.query<{ id: string }>(`select id from payouts order by id`)).rows.map(
    (row) => row.id,
  );
  const [judged, judgementSeconds] = await timed('judgement', async () => {
    const totals = { judged: 0, unjudged: 0, overtaken: 0 };
    for (let start = 0; start < payoutIds.length; start += PAYOUTS_PER_JUDGEMENT) {
      const summary = await reconcilePayouts(
        pool,
        payoutIds.slice(start, start + PAYOUTS_PER_JUDGEMENT),
        new Date(),
        config,
      );
      totals.judged += summary.judged.length;
      totals.unjudged += summary.unjudged.length;
      totals.overtaken += summary.overtaken.length;
    }
    return totals;
  });
  const judgementRss = rss.peak();

  const ratio = (value: number) => Number((value / pagingSeconds).toFixed(2));
  console.log(
    JSON.stringify(
      {
        payouts: PAYOUTS,
        lines_per_payout: LINES,
        lines: generated.lines,
        payments: generated.payments.length,
        paged_by_baseline: paged,
        sync: synced,
        projected: {
          payouts: await count(pool, `select count(*)::int as n from payouts`),
          lines: await count(pool, `select count(*)::int as n from payout_lines`),
          failed_events: await count(pool, `select count(*)::int as n from events where status = 'failed'`),
        },
        // What the projection queued for the reconcile-payouts workers (the bench judges each payout once).
        reconcile_payouts_jobs_queued: await count(
          pool,
          `select count(*)::int as n from pgboss.job where name = 'reconcile-payouts'`,
        ),
        judgement: judged,
        open_findings: await count(pool, `select count(*)::int as n from findings where status = 'open'`),
        setup_payments_seconds: seconds(setupSeconds),
        baseline_paging_seconds: seconds(pagingSeconds),
        sync_seconds: seconds(syncSeconds),
        projection_seconds: seconds(projectionSeconds),
        judgement_seconds: seconds(judgementSeconds),
        ratio_sync_to_paging: ratio(syncSeconds),
        ratio_projection_to_paging: ratio(projectionSeconds),
        ratio_judgement_to_paging: ratio(judgementSeconds),
        ratio_all_to_paging: ratio(syncSeconds + projectionSeconds + judgementSeconds),
        peak_rss_before_sync_mb: mb(rssBefore),
        peak_rss_sync_mb: mb(syncRss),
        peak_rss_projection_mb: mb(projectionRss),
        peak_rss_judgement_mb: mb(judgementRss),
      },
      null,
      2,
    ),
  );
  await boss.stop({ graceful: false });
  await endPool(pool);
} finally {
  rss.stop();
  await closeServer(server);
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
