import pg from 'pg';
import type { Logger } from '../logger.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** A pool or a client already in a transaction: every query function takes either. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;
/** One page of a list keyed by row id: `limit` rows after `afterId` or before `beforeId` (none: the newest). */
export type Page = { limit: number; afterId: number | null; beforeId: number | null };

/**
 * Makes bigint columns (cents, ids) come back as JS numbers, for every pool and client of the process: Tally's
 * amounts stay far below 2^53. pg's type parsers are global, so each entry point (the roles, the CLI, the
 * benchmarks, each test worker) calls this once at start-up, before it reads a row; without it, cents arrive
 * as strings.
 */
export function useBigintParser(): void {
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
}

/**
 * `applicationName` tells the pools apart in pg_stat_activity (the metrics' own pool is `tally-metrics`).
 * `idleFailure` is how loud a dropped idle connection is: an error on the primary, a warning on a replica,
 * whose loss the fallback to the primary already reports (src/db/readPool.ts).
 */
export function createPool(
  connectionString: string,
  log: Logger,
  max = 10,
  applicationName = 'tally',
  idleFailure: 'error' | 'warn' = 'error',
): Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Fail fast so the webhook answers 503 well inside the provider's 5 s deadline.
    connectionTimeoutMillis: 2_000,
    statement_timeout: 10_000,
    application_name: applicationName,
  });
  // `pool.end()` resolves before its connections have closed: one the server drops in that moment (a
  // database stopping right after) is a connection the pool was closing anyway, not a failure.
  pool.on('error', (err) => {
    if (!pool.ending) log[idleFailure](err, 'idle database client failed');
  });
  // A connection lost while checked out (between two queries of a transaction) emits 'error' on its client,
  // which would otherwise crash the process; the query that needed it fails on its own.
  pool.on('connect', (client) =>
    client.on('error', (err) => {
      if (!pool.ending) log.warn({ err: err.message }, 'database connection lost');
    }),
  );
  return pool;
}

export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    client.release();
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    // A client that failed mid-transaction may hold a broken connection: discard it.
    client.release(true);
    throw err;
  }
}

/** Resolves when the database answers a query; the scrape reports whether it did. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('select 1');
}
