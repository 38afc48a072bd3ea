import type { Pool, PoolClient, Queryable } from '../db/pool.ts';
import { readWhole } from '../db/readPool.ts';

// Per hash or sort node (twice that for a hash, shared by a parallel query's workers): bounded, and enough to
// keep a million-payment month in memory (docs/performance.md, "Month-end close").
const REPORT_WORK_MEM = '32MB';

/**
 * Runs `read` beside the report's own queries, on a second connection in the same snapshot, when the pool can
 * give one without waiting; otherwise on the report's connection, in turn with them. Either way it sees what
 * they see.
 */
export type Alongside = <T>(read: (db: Queryable) => Promise<T>) => Promise<T>;

/**
 * Runs a report's queries in one read-only, repeatable-read transaction, so every table of the report sees
 * the same snapshot (totals stay consistent while events keep arriving), with a statement timeout long
 * enough for a large day, which the pool's short default is not, and REPORT_WORK_MEM for each hash and sort:
 * with Postgres's default 4 MB, a month-end close at a million payments spills its anti-joins to disk. On a
 * replica lost mid-way the whole snapshot is read again on the primary (readWhole).
 */
export function withReportSnapshot<T>(
  pool: Pool,
  build: (client: PoolClient, alongside: Alongside) => Promise<T>,
): Promise<T> {
  return readWhole(pool, (from) => inSnapshot(from, build));
}

async function inSnapshot<T>(
  pool: Pool,
  build: (client: PoolClient, alongside: Alongside) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  return inReportTransaction(client, null, () => build(client, alongsideOf(pool, client)));
}

/**
 * `read` in a report's transaction on `client` (in `snapshot`, exported by another, when given), which is then
 * released: whole, or broken off on an error.
 */
async function inReportTransaction<T>(client: PoolClient, snapshot: string | null, read: () => Promise<T>) {
  try {
    await client.query('begin isolation level repeatable read read only');
    if (snapshot !== null) await client.query(`set transaction snapshot ${client.escapeLiteral(snapshot)}`);
    await client.query(`set local statement_timeout = '10min'`);
    await client.query(`set local work_mem = '${REPORT_WORK_MEM}'`);
    const result = await read();
    await client.query('commit');
    client.release();
    return result;
  } catch (err) {
    client.release(true);
    throw err;
  }
}

function alongsideOf(pool: Pool, client: PoolClient): Alongside {
  let exported: Promise<string> | undefined;
  return async (read) => {
    exported ??= client
      .query<{ id: string }>('select pg_export_snapshot() as id')
      .then(({ rows }) => rows[0]?.id ?? '');
    const snapshot = await exported;
    // Checked and taken in one turn of the event loop, so a report never waits for a connection another holds:
    // reports that each held one and waited for a second could exhaust the pool.
    const free =
      pool.waitingCount === 0 && (pool.idleCount > 0 || pool.totalCount < (pool.options.max ?? 10));
    if (!free) return read(client);
    const helper = await pool.connect();
    return inReportTransaction(helper, snapshot, () => read(helper));
  };
}
