// What `npm run bench:year` reads off a database besides the ingest load: the worker's claim plan, the
// raw log's size, and the timed missed-event sweep and daily report.
import pg from 'pg';
import type { Simulator } from '../simulator/server.ts';
import { createPool } from '../src/db/pool.ts';
import type { Logger } from '../src/logger.ts';
import { claimEventsToProcess } from '../src/projection/eventQueries.ts';
import { buildDailyReport } from '../src/reports/buildDailyReport.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';
import type { SweepClient } from '../src/sweep/sweepAccount.ts';
import { sweepAccount } from '../src/sweep/sweepAccount.ts';

/** The worker's claim statement exactly as it sends it (text and parameters), read off a recording stand-in. */
async function claimStatement(): Promise<{ text: string; values: unknown[] }> {
  const sent: { text: string; values: unknown[] }[] = [];
  const recorder = {
    query: async (text: string, values: unknown[]) => {
      sent.push({ text, values });
      return { rows: [] };
    },
  };
  await claimEventsToProcess(recorder as unknown as pg.Pool, 100);
  return sent[0] as { text: string; values: unknown[] };
}

/** The claim's plan (without costs, so two databases' plans compare as text), in a transaction rolled back. */
export async function explainClaim(connectionString: string): Promise<{ plan: string; analyzed: string }> {
  const { text, values } = await claimStatement();
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('begin');
    const lines = async (options: string) =>
      (await client.query<{ 'QUERY PLAN': string }>(`explain (${options}) ${text}`, values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const plan = await lines('costs off');
    const analyzed = await lines('analyze, buffers, costs off, summary on');
    await client.query('rollback');
    return { plan, analyzed };
  } finally {
    await client.end();
  }
}

export type TableSize = {
  total: number;
  heap: number;
  toast: number;
  indexes: number;
  deadRows: number;
  /** Free space the heap's free space map records (what VACUUM found reusable for new rows). */
  reusable: number;
  /** Each index's size, in MB, by name. */
  perIndex: string;
};

/** The `events` table's size on disk, in bytes: all of it, and its heap, TOAST and indexes apart. */
export async function eventsSize(connectionString: string): Promise<TableSize> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_freespacemap');
    const { rows } = await client.query<TableSize>(
      `select pg_total_relation_size('events')::float8 as total, pg_relation_size('events')::float8 as heap,
              coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)::float8 as toast,
              pg_indexes_size('events')::float8 as indexes,
              (select n_dead_tup from pg_stat_user_tables where relname = 'events')::float8 as "deadRows",
              (select coalesce(sum(avail), 0) from pg_freespace('events'))::float8 as reusable,
              (select string_agg(format('%s %s MB', i.indexrelid::regclass,
                                        pg_relation_size(i.indexrelid) / 1048576), ', ' order by i.indexrelid::regclass::text)
                 from pg_index i where i.indrelid = 'events'::regclass) as "perIndex"
         from pg_class c where c.oid = 'events'::regclass`,
    );
    return rows[0] as TableSize;
  } finally {
    await client.end();
  }
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
export const describeSize = (size: TableSize) =>
  `total ${mb(size.total)} (heap ${mb(size.heap)}, TOAST ${mb(size.toast)}, indexes ${mb(size.indexes)}, other forks ${mb(size.total - size.heap - size.toast - size.indexes)}); ${size.deadRows} dead rows, ${mb(size.reusable)} free in the heap's free space map\n    indexes: ${size.perIndex}`;

/** The daily report of `day` in its snapshot transaction, as the job builds it; returns the seconds. */
export async function timeDailyReport(connectionString: string, log: Logger, day: string): Promise<number> {
  const pool = createPool(connectionString, log, 2);
  try {
    const started = performance.now();
    await withReportSnapshot(pool, (client) => buildDailyReport(client, day, new Date(), 'UTC'));
    return (performance.now() - started) / 1000;
  } finally {
    await pool.end();
  }
}

/** The missed-event sweep of one simulated sub account, as bench/sweep.ts runs it; returns the seconds. */
export async function timeSweep(
  connectionString: string,
  log: Logger,
  client: SweepClient,
  account: string,
): Promise<{ seconds: number; listed: number }> {
  const pool = createPool(connectionString, log, 4);
  try {
    const started = performance.now();
    const counts = await sweepAccount({ pool, client, log, now: () => new Date() }, account, {
      kind: 'sweep',
      since: new Date(Date.now() - 72 * 3600_000),
      graceMinutes: 30,
    });
    return { seconds: (performance.now() - started) / 1000, listed: counts.listed };
  } finally {
    await pool.end();
  }
}

/** Sub accounts whose API lists `payments` payments each, created in the last two days, none known to Tally. */
export function seedSweepAccounts(simulator: Simulator, accounts: string[], payments: number): void {
  const now = Date.now();
  for (const account of accounts) {
    simulator.seedPayments(payments, account, {
      createdBetween: [new Date(now - 48 * 3600_000), new Date(now - 3600_000)],
    });
  }
}
