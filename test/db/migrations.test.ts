import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../helpers/database.ts';

const log = createLogger('silent');

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('apply from empty in order, once, even when two processes start together', async () => {
    const url = await createTestDatabase('template0');
    const files = (await readMigrations()).map((migration) => migration.name);
    const [first, second] = await Promise.all([migrate(url, log), migrate(url, log)]);
    expect([...(first ?? []), ...(second ?? [])].sort()).toEqual(files);
    expect(await migrate(url, log)).toEqual([]);
    const rows = await query(url, 'select name from schema_migrations order by version');
    expect(rows.map((row) => row.name)).toEqual(files);
  });

  it('stop at a failing migration, which leaves nothing behind', async () => {
    const url = await createTestDatabase('template0');
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-migrations-'));
    await writeFile(path.join(dir, '0001_good.sql'), 'create table good (id int);');
    await writeFile(path.join(dir, '0002_bad.sql'), 'create table half (id int); select no_such_function();');
    await writeFile(path.join(dir, '0003_later.sql'), 'create table later (id int);');
    await expect(migrate(url, log, dir)).rejects.toThrow(/0002_bad\.sql failed/);
    const rows = await query(url, 'select name from schema_migrations');
    expect(rows.map((row) => row.name)).toEqual(['0001_good.sql']);
    const tables = await query(
      url,
      `select tablename from pg_tables where tablename in ('good', 'half', 'later')`,
    );
    expect(tables.map((row) => row.tablename)).toEqual(['good']);
  });

  it('refuse a file not named NNNN_<what>.sql', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-migrations-'));
    await writeFile(path.join(dir, 'add_things.sql'), 'select 1;');
    await expect(readMigrations(dir)).rejects.toThrow(/NNNN_<what>\.sql/);
  });

  it('applied twice to a migrated database, apply nothing and change nothing', async () => {
    const url = await createTestDatabase();
    const before = await query(
      url,
      'select version, name, applied_at from schema_migrations order by version',
    );
    expect(await migrate(url, log)).toEqual([]);
    expect(await migrate(url, log)).toEqual([]);
    expect(
      await query(url, 'select version, name, applied_at from schema_migrations order by version'),
    ).toEqual(before);
  });

  it('refuse a database migrated past the code, naming the migrations the code does not have', async () => {
    const url = await createTestDatabase();
    await query(
      url,
      `insert into schema_migrations (version, name) values (9999, '9999_from_the_future.sql')`,
    );
    await expect(migrate(url, log)).rejects.toThrow(
      /migrated past this code: it holds 9999_from_the_future\.sql, which migrations\/ does not have/,
    );
  });

  it('refuse a database whose migration at a known version has another name', async () => {
    const url = await createTestDatabase();
    await query(url, `update schema_migrations set name = '0007_something_else.sql' where version = 7`);
    await expect(migrate(url, log)).rejects.toThrow(
      /holds 0007_something_else\.sql \(this code's version 7 is 0007_observed_shapes\.sql\)/,
    );
  });

  it('refuse before applying anything that is pending', async () => {
    const url = await createTestDatabase('template0');
    const dir = await mkdtemp(path.join(tmpdir(), 'tally-migrations-'));
    await writeFile(path.join(dir, '0001_good.sql'), 'create table good (id int);');
    expect(await migrate(url, log, dir)).toEqual(['0001_good.sql']);
    await query(url, `insert into schema_migrations (version, name) values (3, '0003_elsewhere.sql')`);
    await writeFile(path.join(dir, '0002_later.sql'), 'create table later (id int);');
    await expect(migrate(url, log, dir)).rejects.toThrow(/0003_elsewhere\.sql/);
    expect(await query(url, `select tablename from pg_tables where tablename = 'later'`)).toEqual([]);
  });

  it.each([
    ['npm run migrate (the release step)', 'src/processes/release.ts', 'release failed'],
    ['npm start', 'src/processes/start.ts', 'tally failed to start'],
  ])('%s exits 1 against a database migrated past the code, naming the migration', async (_, file, what) => {
    const url = await createTestDatabase();
    await query(
      url,
      `insert into schema_migrations (version, name) values (9999, '9999_from_the_future.sql')`,
    );
    const result = spawnSync(process.execPath, [file], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: url,
        WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
        PORT: '0',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${what}: the database was migrated past this code`);
    expect(result.stderr).toContain('9999_from_the_future.sql');
  });

  it('npm run migrate exits non-zero when the database cannot be migrated', () => {
    const result = spawnSync(process.execPath, ['src/processes/release.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none',
        WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('release failed');
  });
});
