// npm run bench:report [-- PAYMENTS]: 1,000,000 payments (default), 200,000 refunds and their fees
// generated in Postgres, then the daily report built over all of them and rendered as CSV and HTML.
// Prints the time and the process's peak RSS, and a same-run baseline: one plain scan summing the rows.
// BENCH_EXPLAIN=1 also prints, on stderr, each query of the report with its time and its EXPLAIN (ANALYZE, BUFFERS).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { buildDailyReport } from '../src/reports/buildDailyReport.ts';
import { renderCsv } from '../src/reports/renderCsv.ts';
import { renderHtml } from '../src/reports/renderHtml.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';
import { countArgument, sampleRss, timed } from './measure.ts';
import { profileQueries } from './queryProfile.ts';

useBigintParser();

const PAYMENTS = countArgument('PAYMENTS', 1_000_000);
const REFUNDS = Math.floor(PAYMENTS / 5);
const DAY = '2026-11-02';
const log = createLogger('warn');
const rss = sampleRss();

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-report-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const pool = createPool(database.connectionString, log, 8);
  // Generating millions of rows takes longer than the application pool's statement timeout.
  const loader = new pg.Pool({ connectionString: database.connectionString, max: 1 });
  await timed(`generate ${PAYMENTS} payments, ${REFUNDS} refunds and their fees`, async () => {
    await loader.query(
      `insert into payments (id, account_id, account_type, amount, currency, status, status_terminal, status_updated_at,
                             status_event_row_id, capture_strategy, method_kind, card_brand, fee_amount,
                             application_fee_amount, created_at, updated_at, event_row_id, succeeded_at,
                             fees_updated_at, fees_event_row_id, fees_total, fees_processing, fees_platform,
                             fees_other, fees_configured, fees_explicit, snapshot)
       select 'py_' || g, 'acc_' || (g % 200), case when g % 10 = 0 then 'test' else 'live' end, 1000 + g % 9000,
              case when g % 3 = 0 then 'cad' else 'usd' end, 'succeeded', true, ts, g, 'automatic', 'card', 'visa',
              60, case when g % 50 = 0 then 25 end, ts, ts, g, ts,
              -- The totals of the two fees below: a configured processing fee (50), an explicit platform fee (10).
              ts, g, 60, 50, 10, 0, 50, 10, '{}'::jsonb
         from generate_series(1, $1::int) g, lateral (select $2::timestamptz + (g % 86400) * interval '1 second' as ts) t`,
      [PAYMENTS, `${DAY}T00:00:00Z`],
    );
    await loader.query(
      `insert into payment_fees (id, payment_id, type, amount, remaining_amount, currency, source_configuration_id, source_fee_type, snapshot_updated_at)
       select 'pyfee_' || g || '_' || k, 'py_' || g, case k when 1 then 'processing_fee' else 'platform_fee' end,
              case k when 1 then 50 else 10 end, case k when 1 then 50 else 10 end, 'usd',
              case k when 1 then 'sfc_1' end, case k when 1 then 'processing_ecomm' end, now()
         from generate_series(1, $1::int) g, generate_series(1, 2) k`,
      [PAYMENTS],
    );
    await loader.query(
      `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot)
       select 're_' || g, 'py_' || (g * 5), 300, 'succeeded', $2::timestamptz + (g % 86400) * interval '1 second',
              $2::timestamptz + (g % 86400) * interval '1 second', g, '{}'::jsonb
         from generate_series(1, $1::int) g`,
      [REFUNDS, `${DAY}T00:00:00Z`],
    );
    await loader.query(
      `insert into returned_fees (id, refund_id, payment_fee_id, type, returned_amount, original_amount, remaining_amount, currency)
       select 'rtfee_' || g, 're_' || g, 'pyfee_' || (g * 5) || '_1', 'processing_fee', 12, 50, 38, 'usd'
         from generate_series(1, $1::int) g`,
      [REFUNDS],
    );
    await loader.query('analyze');
    await loader.end();
  });

  const [, baselineSeconds] = await timed('baseline scan', async () => {
    await pool.query(
      `select account_type, account_id, currency, count(*), sum(amount) from payments
        where created_at >= $1::timestamptz and created_at < $1::timestamptz + interval '1 day' group by 1, 2, 3`,
      [`${DAY}T00:00:00Z`],
    );
  });
  rss.reset();
  const profile = process.env.BENCH_EXPLAIN === '1' ? profileQueries() : undefined;
  const [report, reportSeconds] = await timed('daily report', async () => {
    const built = await withReportSnapshot(pool, (client) =>
      buildDailyReport(profile?.wrap(client) ?? client, DAY, new Date(), 'UTC'),
    );
    let bytes = 0;
    for (const chunk of renderCsv(built)) bytes += chunk.length;
    bytes += renderHtml(built, 'rpt_bench').length;
    return { built, bytes };
  });
  rss.stop();
  const payments = report.built.totals.reduce((sum, total) => sum + Number(total.payments), 0);
  process.stdout.write(
    `${PAYMENTS} payments, ${REFUNDS} refunds; report rows: ${report.built.accounts.length} accounts, ${payments} payments counted\n` +
      `baseline grouped scan:   ${baselineSeconds.toFixed(2)} s\n` +
      `daily report (+CSV/HTML): ${reportSeconds.toFixed(2)} s (ratio to baseline ${(reportSeconds / baselineSeconds).toFixed(2)}; target ≤ 5×)\n` +
      `peak RSS while building:  ${(rss.peak() / 1024 / 1024).toFixed(0)} MB (target ≤ 300 MB)\n`,
  );
  if (profile) await withReportSnapshot(pool, (client) => profile.explain(client));
  await pool.end();
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
