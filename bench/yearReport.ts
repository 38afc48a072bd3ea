// Part of `npm run bench:year`, with BENCH_EXPLAIN=1: the daily report's queries on the year database and on
// the day-only one, each with its time and its EXPLAIN (ANALYZE, BUFFERS), on stderr, to see where a year
// costs the report more than a day does.
import { createPool } from '../src/db/pool.ts';
import type { Logger } from '../src/logger.ts';
import { buildDailyReport } from '../src/reports/buildDailyReport.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';
import { profileQueries } from './queryProfile.ts';

/** Builds the daily report of `day` on each database, then explains each of its queries there. */
export async function explainDailyReports(databases: Record<string, string>, log: Logger, day: string) {
  for (const [name, connectionString] of Object.entries(databases)) {
    const pool = createPool(connectionString, log, 2);
    try {
      const profile = profileQueries();
      await withReportSnapshot(pool, (client) =>
        buildDailyReport(profile.wrap(client), day, new Date(), 'UTC'),
      );
      process.stderr.write(`\ndaily report of ${day}, ${name} database, each query's time and plan:\n`);
      await withReportSnapshot(pool, (client) => profile.explain(client));
    } finally {
      await pool.end();
    }
  }
}
