import type { Pool, PoolClient } from '../db/pool.ts';
import { readWhole } from '../db/readPool.ts';

// Per hash or sort node (twice that for a hash, shared by a parallel query's workers): bounded, and enough to
// keep a million-payment month in memory (docs/performance.md, "Month-end close").
const REPORT_WORK_MEM = '32MB';

/**
 * Runs a report's queries in one read-only, repeatable-read transaction, so every table of the report sees
 * the same snapshot (totals stay consistent while events keep arriving), with a statement timeout long
 * enough for a large day, which the pool's short default is not, and REPORT_WORK_MEM for each hash and sort:
 * with Postgres's default 4 MB, a month-end close at a million payments spills its anti-joins to disk. On a
 * replica lost mid-way the whole snapshot is read again on the primary (readWhole).
 */
export function withReportSnapshot<T>(pool: Pool, build: (client: PoolClient) => Promise<T>): Promise<T> {
  return readWhole(pool, (from) => inSnapshot(from, build));
}

async function inSnapshot<T>(pool: Pool, build: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    await client.query(`set local statement_timeout = '10min'`);
    await client.query(`set local work_mem = '${REPORT_WORK_MEM}'`);
    const result = await build(client);
    await client.query('commit');
    client.release();
    return result;
  } catch (err) {
    client.release(true);
    throw err;
  }
}
