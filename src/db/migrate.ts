import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, '..', '..', 'migrations');
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;
// Any constant works; every Tally process uses this one so concurrent starts apply each migration once.
const MIGRATION_LOCK = 7_426_001;

export type Migration = { version: number; name: string; sql: string };

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
    migrations.push({ version, name: file, sql: await readFile(path.join(dir, file), 'utf8') });
  }
  return migrations;
}

/**
 * Applies pending migrations in order, each in its own transaction, under an advisory lock. Refuses,
 * before applying anything, a database that holds a migration this code does not have.
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
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const { rows } = await client.query<AppliedMigration>(
      'select version, name from schema_migrations order by version',
    );
    refuseUnknownMigrations(rows, migrations);
    const applied = new Set(rows.map((row) => row.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query('begin');
      try {
        await client.query(migration.sql);
        await client.query('insert into schema_migrations (version, name) values ($1::integer, $2::text)', [
          migration.version,
          migration.name,
        ]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
      }
      log.info({ migration: migration.name }, 'migration applied');
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

type AppliedMigration = { version: number; name: string };

// A database migrated by newer code (a rollback, or another branch deployed to it) has tables and columns
// this code does not expect; migrations are up only, so the one safe answer is to stop and name them.
function refuseUnknownMigrations(applied: AppliedMigration[], known: Migration[]): void {
  const knownNames = new Map(known.map((migration) => [migration.version, migration.name]));
  const unknown = applied.flatMap((row) => {
    const knownName = knownNames.get(row.version);
    if (knownName === row.name) return [];
    return [knownName ? `${row.name} (this code's version ${row.version} is ${knownName})` : row.name];
  });
  if (unknown.length === 0) return;
  throw new Error(
    `the database was migrated past this code: it holds ${unknown.join(', ')}, which migrations/ does not have; ` +
      'run the Tally version that applied them, or point this one at a database it migrated',
  );
}
