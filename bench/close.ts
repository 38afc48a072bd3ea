// npm run bench:close [-- PAYMENTS]: a month of 1,000,000 payments (default) in America/New_York, with fees,
// refunds and returned fees, ACH returns, disputes, payouts with lines and bank credits (bench/closeGenerate.ts),
// generated in Postgres; then the month's close report (as GET /api/periods/:period builds it) and its journal
// in all four formats. Prints the time and the process's peak RSS next to a same-run baseline: one grouped
// scan of the month's payments. BENCH_EXPLAIN=1 also prints, on stderr, each query with its time and plan.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildPeriodReport, type PeriodReport } from '../src/close/buildPeriodReport.ts';
import { buildJournalEntries } from '../src/close/journal.ts';
import { renderJournal } from '../src/close/journalFormatRules.ts';
import { xeroParts } from '../src/close/journalFormats.ts';
import { periodBounds } from '../src/close/periods.ts';
import { renderPeriodCsv } from '../src/close/renderPeriod.ts';
import { renderPeriodHtml } from '../src/close/renderPeriodHtml.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, useBigintParser } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { release } from '../src/processes/release.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';
import { generateMonth } from './closeGenerate.ts';
import { countArgument, endPool, sampleRss, timed } from './measure.ts';
import { profileQueries } from './queryProfile.ts';

useBigintParser();

const PAYMENTS = countArgument('PAYMENTS', 1_000_000);
const PERIOD = '2026-10';
const TIME_ZONE = 'America/New_York';
const SETTINGS = { accounts: {}, xeroTaxRate: 'Tax Exempt' };
const log = createLogger('warn');
const rss = sampleRss();

/** Every file the journal route can answer for the period: csv and netsuite whole, xero and IIF per currency. */
function renderEveryJournal(report: PeriodReport) {
  const files: string[] = [];
  const entries = buildJournalEntries(report.period, report.journal);
  files.push(renderJournal('csv', entries, SETTINGS), renderJournal('netsuite', entries, SETTINGS));
  for (const currency of new Set(report.journal.map((movement) => movement.currency))) {
    const ofCurrency = buildJournalEntries(
      report.period,
      report.journal.filter((movement) => movement.currency === currency),
    );
    files.push(renderJournal('quickbooks', ofCurrency, SETTINGS));
    for (const part of xeroParts(ofCurrency)) files.push(renderJournal('xero', part, SETTINGS));
  }
  return {
    entries: entries.length,
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.length, 0),
  };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-close-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log);
  const pool = createPool(database.connectionString, log, 4);
  const { from, to } = periodBounds(PERIOD, TIME_ZONE);
  // Generating millions of rows takes longer than the application pool's statement timeout.
  const loader = new pg.Client({ connectionString: database.connectionString });
  await loader.connect();
  await timed(
    `generate a month of ${PAYMENTS} payments and its refunds, disputes, payouts and bank`,
    async () => {
      await generateMonth(loader, PAYMENTS, { period: PERIOD, from, to, timeZone: TIME_ZONE });
      await loader.query('vacuum analyze');
    },
  );
  await loader.end();

  const [, baselineSeconds] = await timed('baseline scan', () =>
    pool.query(
      `select account_type, account_id, currency, count(*), sum(amount) from payments
        where created_at >= $1::timestamptz and created_at < $2::timestamptz group by 1, 2, 3`,
      [from, to],
    ),
  );
  rss.reset();
  const profile = process.env.BENCH_EXPLAIN === '1' ? profileQueries() : undefined;
  const [report, reportSeconds] = await timed('close report', async () => {
    const built = await withReportSnapshot(pool, (client) =>
      buildPeriodReport(profile?.wrap(client) ?? client, PERIOD, TIME_ZONE, new Date(), null),
    );
    return { built, bytes: renderPeriodCsv(built).length + renderPeriodHtml(built).length };
  });
  const [journal, journalSeconds] = await timed('journal, four formats', async () =>
    renderEveryJournal(report.built),
  );
  rss.stop();
  const totalSeconds = reportSeconds + journalSeconds;
  const payouts = report.built.accounts.reduce((sum, account) => sum + account.payouts.created, 0);
  const unexplained = report.built.accounts.reduce((sum, account) => sum + account.walk.unexplained, 0);
  process.stdout.write(
    `${PAYMENTS} payments in ${PERIOD} (${TIME_ZONE}); ${report.built.accounts.length} accounts, ` +
      `payouts created ${payouts} cents, unexplained ${unexplained} cents; ` +
      `journal: ${journal.entries} entries, ${journal.files} files, ${journal.bytes} bytes\n` +
      `load average (1, 5, 15 min): ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}\n` +
      `baseline grouped scan:       ${baselineSeconds.toFixed(2)} s\n` +
      `close report (+CSV/HTML):    ${reportSeconds.toFixed(2)} s\n` +
      `journal (4 formats):         ${journalSeconds.toFixed(2)} s\n` +
      `report and journal:          ${totalSeconds.toFixed(2)} s (ratio to baseline ${(totalSeconds / baselineSeconds).toFixed(2)}; target ≤ 5×)\n` +
      `peak RSS while building:     ${(rss.peak() / 1024 / 1024).toFixed(0)} MB (target ≤ 300 MB)\n`,
  );
  if (profile) await withReportSnapshot(pool, (client) => profile.explain(client));
  await endPool(pool);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
