import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * A data change too large for one transaction, walked in key order a batch at a time after the schema
 * migration that made room for it. Each batch and its progress commit together, so a stopped backfill
 * resumes after its last committed batch and no batch is applied twice.
 */
export type Backfill = {
  /** Progress is kept under this name: never reuse or rename it. */
  name: string;
  table: string;
  /** A unique, indexed column of `table` (its primary key), walked in order. */
  key: string;
  keyType: 'text' | 'bigint';
  /** Updates the rows whose key is between $1 and $2, both included, e.g. `where id between $1::text and $2::text`. */
  update: string;
  /** Rows per transaction; small enough that a batch holds its row locks for well under a second. */
  batchSize: number;
};

export type BackfillProgress = { backfill: string; rows: number; updated: number; lastKey: string };
export type BackfillHooks = { afterBatch?: (progress: BackfillProgress) => Promise<void> | void };

/**
 * Runs each backfill to its end, resuming any that stopped; one that has finished is skipped. Progress is kept
 * in `schema_backfills`, which `migrate` creates.
 */
export async function runBackfills(
  connectionString: string,
  log: Logger,
  backfills: readonly Backfill[],
  hooks: BackfillHooks = {},
): Promise<void> {
  if (backfills.length === 0) return;
  const client = new pg.Client({ connectionString, application_name: 'tally-backfill' });
  await client.connect();
  try {
    for (const backfill of backfills) await runBackfill(client, log, backfill, hooks);
  } finally {
    await client.end();
  }
}

type ProgressRow = {
  last_key: string | null;
  rows_done: string;
  rows_updated: string;
  finished_at: Date | null;
};
type BatchRow = { first: string | null; last: string | null; rows: number };

async function runBackfill(client: pg.Client, log: Logger, backfill: Backfill, hooks: BackfillHooks) {
  await client.query('insert into schema_backfills (name) values ($1::text) on conflict do nothing', [
    backfill.name,
  ]);
  const table = client.escapeIdentifier(backfill.table);
  const key = client.escapeIdentifier(backfill.key);
  const nextBatch = `select min(k)::text as first, max(k)::text as last, count(*)::int as rows
    from (select ${key} as k from ${table} where ($1::${backfill.keyType} is null or ${key} > $1::${backfill.keyType})
          order by ${key} limit $2::int) batch`;
  for (;;) {
    await client.query('begin');
    let progress: BackfillProgress;
    try {
      // Locked for the batch: two releases running the same backfill take turns rather than overlap.
      const { rows } = await client.query<ProgressRow>(
        'select last_key, rows_done, rows_updated, finished_at from schema_backfills where name = $1::text for update',
        [backfill.name],
      );
      const state = rows[0];
      if (!state || state.finished_at) {
        await client.query('commit');
        return;
      }
      const batch = (await client.query<BatchRow>(nextBatch, [state.last_key, backfill.batchSize])).rows[0];
      if (!batch?.first || !batch.last) {
        await client.query('update schema_backfills set finished_at = now() where name = $1::text', [
          backfill.name,
        ]);
        await client.query('commit');
        log.info({ backfill: backfill.name, rows: Number(state.rows_done) }, 'backfill finished');
        return;
      }
      const updated = (await client.query(backfill.update, [batch.first, batch.last])).rowCount ?? 0;
      progress = {
        backfill: backfill.name,
        rows: Number(state.rows_done) + batch.rows,
        updated: Number(state.rows_updated) + updated,
        lastKey: batch.last,
      };
      await client.query(
        `update schema_backfills set last_key = $2::text, rows_done = $3::bigint, rows_updated = $4::bigint
          where name = $1::text`,
        [backfill.name, progress.lastKey, progress.rows, progress.updated],
      );
      await client.query('commit');
    } catch (err) {
      await client.query('rollback');
      throw new Error(
        `backfill ${backfill.name} failed: ${(err as Error).message}; it resumes after its last committed batch`,
        { cause: err },
      );
    }
    log.info(progress, 'backfill progress');
    await hooks.afterBatch?.(progress);
  }
}
