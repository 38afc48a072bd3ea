// npm run bench:close [-- PAYMENTS]: a month of 1,000,000 payments (default) in America/New_York, with fees,
// refunds and returned fees, ACH returns, disputes, payouts with lines and bank credits (bench/closeGenerate.ts),
// generated in Postgres; then, in interleaved rounds (BENCH_ROUNDS, default 3), a baseline (one grouped scan
// of the month's payments) and the month's close report (as GET /api/periods/:period builds it) with its
// journal in all four formats. Prints each round's times and ratio, the median ratio, and the process's peak
// RSS while building, each round from a collected heap. BENCH_EXPLAIN=1 also prints, on stderr, each query of
// the first round with its time and plan.
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
import { foldMovementDays } from '../src/projection/foldMovementDays.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';
import { generateMonth } from './closeGenerate.ts';
import { countArgument, endPool, roundsSetting, sampleRss, timed } from './measure.ts';
import { profileQueries } from './queryProfile.ts';

useBigintParser();

const PAYMENTS = countArgument('PAYMENTS', 1_000_000);
const ROUNDS = roundsSetting(3);
const PERIOD = '2026-10';
const TIME_ZONE = 'America/New_York';
const SETTINGS = { accounts: {}, xeroTaxRate: 'Tax Exempt' };
const log = createLogger('warn');
const rss = sampleRss();

/**
 * Every file the journal route can answer for the period: csv and netsuite whole, xero and IIF per currency.
 * Each is counted and let go, as the route sends one and lets it go; the RSS is read after each.
 */
function renderEveryJournal(report: PeriodReport) {
  const written = { entries: 0, files: 0, bytes: 0 };
  const count = (file: string) => {
    written.files += 1;
    written.bytes += file.length;
    rss.sample();
  };
  const entries = buildJournalEntries(report.period, report.journal);
  written.entries = entries.length;
  count(renderJournal('csv', entries, SETTINGS));
  count(renderJournal('netsuite', entries, SETTINGS));
  for (const currency of new Set(report.journal.map((movement) => movement.currency))) {
    const ofCurrency = buildJournalEntries(
      report.period,
      report.journal.filter((movement) => movement.currency === currency),
    );
    count(renderJournal('quickbooks', ofCurrency, SETTINGS));
    for (const part of xeroParts(ofCurrency)) count(renderJournal('xero', part, SETTINGS));
  }
  return written;
}

type Round = { baseline: number; report: number; journal: number; peakRss: number };
type Built = { built: PeriodReport; files: ReturnType<typeof renderEveryJournal> };

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** Each round's figures and ratio, then the median ratio (a ratio per round: the machine's speed drifts). */
function printRounds(rounds: Round[], { built, files }: Built) {
  const payouts = built.accounts.reduce((sum, account) => sum + account.payouts.created, 0);
  const unexplained = built.accounts.reduce((sum, account) => sum + account.walk.unexplained, 0);
  const ratios = rounds.map((round) => (round.report + round.journal) / round.baseline);
  const lines = rounds.map(
    (round, index) =>
      `round ${index + 1}: baseline ${round.baseline.toFixed(2)} s, report (+CSV/HTML) ${round.report.toFixed(2)} s, ` +
      `journal ${round.journal.toFixed(2)} s: ratio ${(ratios[index] ?? 0).toFixed(2)}, ` +
      `peak RSS ${megabytes(round.peakRss)} MB\n`,
  );
  process.stdout.write(
    `${PAYMENTS} payments in ${PERIOD} (${TIME_ZONE}); ${built.accounts.length} accounts, ` +
      `payouts created ${payouts} cents, unexplained ${unexplained} cents; ` +
      `journal: ${files.entries} entries, ${files.files} files, ${files.bytes} bytes\n` +
      `load average (1, 5, 15 min): ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}\n` +
      lines.join('') +
      `report and journal against the baseline, median over ${rounds.length} round${rounds.length === 1 ? '' : 's'}: ` +
      `${median(ratios).toFixed(2)} (target ≤ 5×)\n` +
      `peak RSS while building, over every round: ${megabytes(Math.max(...rounds.map((round) => round.peakRss)))} MB (target ≤ 300 MB), ` +
      `${globalThis.gc ? 'each round from a collected heap' : 'rounds not collected between (run it as npm run bench:close, which passes --expose-gc)'}\n` +
      `the process's peak RSS as the system counts it, generation included: ${megabytes(process.resourceUsage().maxRSS * 1024)} MB\n`,
  );
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'tally-bench-close-'));
await import('node:fs/promises').then((fs) => fs.chmod(dataDir, 0o777));
const database = await startEmbeddedPostgres(dataDir, log);
try {
  await release(database.connectionString, log, { businessTimeZone: TIME_ZONE });
  const pool = createPool(database.connectionString, log, 4);
  const { from, to } = periodBounds(PERIOD, TIME_ZONE);
  // Generating millions of rows takes longer than the application pool's statement timeout.
  const loader = new pg.Client({ connectionString: database.connectionString });
  await loader.connect();
  await timed(
    `generate a month of ${PAYMENTS} payments and its refunds, disputes, payouts and bank`,
    async () => {
      await generateMonth(loader, PAYMENTS, { period: PERIOD, from, to, timeZone: TIME_ZONE });
      // The days the triggers kept as the month was written, folded as the worker folds them after each batch.
      await foldMovementDays(loader);
      await loader.query('vacuum analyze');
    },
  );
  await loader.end();

  const profile = process.env.BENCH_EXPLAIN === '1' ? profileQueries() : undefined;
  const rounds: Round[] = [];
  let first: Built | undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round from a collected heap (npm run bench:close passes --expose-gc), outside what is timed: a round's
    // peak RSS is then what its close needs, not also the garbage the round before left for the collector.
    globalThis.gc?.();
    const [, baseline] = await timed(`round ${round}: baseline scan`, () =>
      pool.query(
        `select account_type, account_id, currency, count(*), sum(amount) from payments
          where created_at >= $1::timestamptz and created_at < $2::timestamptz group by 1, 2, 3`,
        [from, to],
      ),
    );
    rss.reset();
    const wrap = round === 1 ? profile?.wrap : undefined;
    const [built, report] = await timed(`round ${round}: close report`, async () => {
      const period = await withReportSnapshot(pool, (client, alongside) =>
        wrap
          ? buildPeriodReport(wrap(client), PERIOD, TIME_ZONE, new Date(), null, (read) =>
              alongside((other) => read(wrap(other))),
            )
          : buildPeriodReport(client, PERIOD, TIME_ZONE, new Date(), null, alongside),
      );
      rss.sample();
      renderPeriodCsv(period);
      rss.sample();
      renderPeriodHtml(period);
      rss.sample();
      return period;
    });
    const [files, journal] = await timed(`round ${round}: journal, four formats`, async () =>
      renderEveryJournal(built),
    );
    rounds.push({ baseline, report, journal, peakRss: rss.peak() });
    first ??= { built, files };
  }
  rss.stop();
  if (first) printRounds(rounds, first);
  if (profile) await withReportSnapshot(pool, (client) => profile.explain(client));
  await endPool(pool);
} finally {
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
