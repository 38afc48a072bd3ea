import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import {
  type AppliedMigration,
  type Migration,
  refuseEditedMigrations,
  refuseUnknownMigrations,
} from './migrationHistory.ts';
import { splitStatements } from './sqlStatements.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', '..', 'migrations');
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;
// Any constant works; every Tally process uses this one so concurrent starts apply each migration once.
const MIGRATION_LOCK = 7_426_001;
// How often a release that finds another one migrating asks for the lock again.
const LOCK_POLL_MS = 200;
/** A migration whose first line is this runs outside a transaction, one statement at a time. */
export const NO_TRANSACTION_MARKER = '-- tally:no-transaction';
// `create [unique] index concurrently if not exists <name>`: the index a re-run may find left invalid.
const CONCURRENT_INDEX =
  /^create\s+(?:unique\s+)?index\s+concurrently\s+if\s+not\s+exists\s+("(?:[^"]|"")+"|[\w.]+)/i;

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`migration file name ${file} is not NNNN_<what>.sql`);
    const version = Number(match[1]);
    if (migrations.some((migration) => migration.version === version)) {
      throw new Error(`two migrations share version ${version}`);
    }
    const sql = await readFile(path.join(dir, file), 'utf8');
    const transaction = sql.split('\n', 1)[0]?.trim() !== NO_TRANSACTION_MARKER;
    migrations.push({ version, name: file, sql, checksum: checksumOf(sql), transaction });
  }
  return migrations;
}

// Line endings are left out so that a checkout that turns LF into CRLF is not taken for an edit.
export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql.replaceAll('\r\n', '\n')).digest('hex');
}

/**
 * Applies pending migrations in order under a session-level advisory lock, each in its own transaction, or
 * statement by statement when it starts with the no-transaction marker. Refuses, before applying anything,
 * a database that holds a migration this code does not have or whose file was edited since it was applied.
 */
export async function migrate(
  connectionString: string,
  log: Logger,
  dir = MIGRATIONS_DIR,
): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString, application_name: 'tally-migrate' });
  await client.connect();
  try {
    await takeMigrationLock(client, log);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now(),
      checksum text
    )`);
    // Each backfill's progress (src/db/backfill.ts), one row per backfill, committed with each batch.
    await client.query(`create table if not exists schema_backfills (
      name text primary key,
      last_key text,
      rows_done bigint not null default 0,
      rows_updated bigint not null default 0,
      finished_at timestamptz
    )`);
    // Databases migrated before checksums were kept; `if not exists` makes this a no-op afterwards.
    await client.query('alter table schema_migrations add column if not exists checksum text');
    const { rows } = await client.query<AppliedMigration>(
      'select version, name, checksum from schema_migrations order by version',
    );
    refuseUnknownMigrations(rows, migrations);
    await recordMissingChecksums(client, rows, migrations);
    refuseEditedMigrations(rows, migrations);
    const applied = new Set(rows.map((row) => row.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      if (migration.transaction) await applyInTransaction(client, migration);
      else await applyStatementByStatement(client, migration, log);
      log.info({ migration: migration.name }, 'migration applied');
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

// Asked again and again rather than waited for in `pg_advisory_lock`: a session blocked in that statement
// holds a snapshot, and `CREATE INDEX CONCURRENTLY` in the release holding the lock waits for every older
// snapshot to end, so the two would wait on each other. The lock is a session lock, held between the
// statements of a no-transaction migration, and released on disconnect if the process dies.
async function takeMigrationLock(client: pg.Client, log: Logger): Promise<void> {
  let waiting = false;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>(
      'select pg_try_advisory_lock($1::bigint) as locked',
      [MIGRATION_LOCK],
    );
    if (rows[0]?.locked) return;
    if (!waiting) log.info('another release is migrating this database: waiting for it to finish');
    waiting = true;
    await sleep(LOCK_POLL_MS);
  }
}

// Rows applied before checksums were kept get the checksum of this code's file: from then on an edit shows.
async function recordMissingChecksums(
  client: pg.Client,
  applied: AppliedMigration[],
  known: Migration[],
): Promise<void> {
  for (const row of applied) {
    if (row.checksum !== null) continue;
    const migration = known.find((candidate) => candidate.version === row.version);
    if (!migration) continue;
    await client.query('update schema_migrations set checksum = $2::text where version = $1::integer', [
      row.version,
      migration.checksum,
    ]);
    row.checksum = migration.checksum;
  }
}

async function applyInTransaction(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('begin');
  try {
    await client.query(migration.sql);
    await recordApplied(client, migration);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw new Error(`migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Each statement commits on its own, so a migration stopped halfway has its first statements applied and is
 * not recorded; the next release runs it again from the start. That is safe because such a migration is
 * idempotent by rule (`if not exists`, `if exists`; the linter holds new ones to it), and an index that an
 * interrupted concurrent build left invalid, which `if not exists` would skip, is dropped and built again.
 */
async function applyStatementByStatement(
  client: pg.Client,
  migration: Migration,
  log: Logger,
): Promise<void> {
  const statements = splitStatements(migration.sql);
  // A concurrent build sorts in parallel workers by default, and on Postgres 18 its heap scan reads ahead through
  // the I/O worker processes: more than one core, while ingest's inserts wait for CPU. One process keeps it to
  // one core beside ingest. A statement of the migration may set either higher again.
  await client.query('set max_parallel_maintenance_workers = 0');
  await client.query('set effective_io_concurrency = 0');
  for (const [index, statement] of statements.entries()) {
    try {
      await dropInvalidIndex(client, statement, migration, log);
      await client.query(statement);
    } catch (err) {
      throw new Error(
        `migration ${migration.name} failed at statement ${index + 1} of ${statements.length}: ` +
          `${(err as Error).message}; it runs outside a transaction, so the next release runs it again`,
        { cause: err },
      );
    }
  }
  await client.query('reset max_parallel_maintenance_workers');
  await client.query('reset effective_io_concurrency');
  await recordApplied(client, migration);
}

async function dropInvalidIndex(
  client: pg.Client,
  statement: string,
  migration: Migration,
  log: Logger,
): Promise<void> {
  const index = CONCURRENT_INDEX.exec(statement)?.[1];
  if (!index) return;
  const { rows } = await client.query<{ valid: boolean }>(
    'select indisvalid as valid from pg_index where indexrelid = to_regclass($1::text)',
    [index],
  );
  if (rows[0]?.valid !== false) return;
  log.warn(
    { migration: migration.name, index },
    'index left invalid by an interrupted build: building it again',
  );
  await client.query(`drop index concurrently if exists ${index}`);
}

async function recordApplied(client: pg.Client, migration: Migration): Promise<void> {
  await client.query(
    'insert into schema_migrations (version, name, checksum) values ($1::integer, $2::text, $3::text)',
    [migration.version, migration.name, migration.checksum],
  );
}
