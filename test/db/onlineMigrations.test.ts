import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { checksumOf, migrate, readMigrations } from '../../src/db/migrate.ts';
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

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql);
  return dir;
}

const TABLE = `create table widgets (id bigint primary key, code text not null);
insert into widgets select n, 'w' || n from generate_series(1, 20000) n;`;

const indexValidity = (url: string) =>
  query(
    url,
    `select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = 'widgets_code_key'`,
  );

describe('online migrations', () => {
  it('apply a no-transaction migration statement by statement: a concurrent index build', async () => {
    const url = await createTestDatabase('template0');
    const dir = await migrationsDir({
      '0001_widgets.sql': TABLE,
      '0002_widgets_code.sql': `-- tally:no-transaction
-- Built without blocking writes; a semicolon in a comment; is not a statement.
create unique index concurrently if not exists widgets_code_key on widgets (code);
drop index concurrently if exists widgets_nothing_idx;`,
    });
    expect(await migrate(url, log, dir)).toEqual(['0001_widgets.sql', '0002_widgets_code.sql']);
    expect(await indexValidity(url)).toEqual([{ name: 'widgets_code_key', valid: true }]);
    expect(await migrate(url, log, dir)).toEqual([]);
  });

  it('build the indexes of a no-transaction migration in one process unless the migration sets more', async () => {
    const url = await createTestDatabase('template0');
    const seen = (name: string) =>
      `insert into build_settings values ('${name}', current_setting('max_parallel_maintenance_workers'), current_setting('effective_io_concurrency'));`;
    const dir = await migrationsDir({
      '0001_widgets.sql': `${TABLE}\ncreate table build_settings (migration text, workers text, read_ahead text);`,
      '0002_widgets_code.sql': `-- tally:no-transaction
create unique index concurrently if not exists widgets_code_key on widgets (code);
${seen('0002')}`,
      '0003_raised.sql': `-- tally:no-transaction
set max_parallel_maintenance_workers = 2;
set effective_io_concurrency = 16;
${seen('0003')}`,
      '0004_in_transaction.sql': seen('0004'),
    });
    await migrate(url, log, dir);
    const [serverDefault] = await query(
      url,
      `select current_setting('max_parallel_maintenance_workers') as workers,
              current_setting('effective_io_concurrency') as read_ahead`,
    );
    expect(serverDefault?.workers).not.toBe('0');
    expect(serverDefault?.read_ahead).not.toBe('0');
    expect(await query(url, 'select * from build_settings order by migration')).toEqual([
      { migration: '0002', workers: '0', read_ahead: '0' },
      { migration: '0003', workers: '2', read_ahead: '16' },
      { migration: '0004', ...serverDefault },
    ]);
  });

  it('rebuild on the next release an index that an interrupted concurrent build left invalid', async () => {
    const url = await createTestDatabase('template0');
    const dir = await migrationsDir({
      '0001_widgets.sql': `${TABLE}\nupdate widgets set code = 'w1' where id = 2;`,
      '0002_widgets_code.sql': `-- tally:no-transaction
create unique index concurrently if not exists widgets_code_key on widgets (code);`,
    });
    await expect(migrate(url, log, dir)).rejects.toThrow(
      /0002_widgets_code\.sql failed at statement 1 of 1: could not create unique index "widgets_code_key"/,
    );
    expect(await indexValidity(url)).toEqual([{ name: 'widgets_code_key', valid: false }]);
    expect((await query(url, 'select name from schema_migrations')).map((row) => row.name)).toEqual([
      '0001_widgets.sql',
    ]);
    await query(url, `update widgets set code = 'w2' where id = 2`);
    expect(await migrate(url, log, dir)).toEqual(['0002_widgets_code.sql']);
    expect(await indexValidity(url)).toEqual([{ name: 'widgets_code_key', valid: true }]);
    await expect(query(url, `insert into widgets values (30000, 'w7')`)).rejects.toThrow(/duplicate key/);
  });

  it('two releases at once apply each migration once, a concurrent index build included', async () => {
    const url = await createTestDatabase('template0');
    const dir = await migrationsDir({
      '0001_widgets.sql': TABLE,
      '0002_widgets_code.sql': `-- tally:no-transaction
create unique index concurrently if not exists widgets_code_key on widgets (code);`,
      '0003_gadgets.sql': 'create table gadgets (id bigint primary key);',
    });
    const results = await Promise.all([
      migrate(url, log, dir),
      migrate(url, log, dir),
      migrate(url, log, dir),
    ]);
    expect(results.flat().sort()).toEqual(['0001_widgets.sql', '0002_widgets_code.sql', '0003_gadgets.sql']);
    expect(await indexValidity(url)).toEqual([{ name: 'widgets_code_key', valid: true }]);
    expect(await query(url, 'select count(*)::int as n from schema_migrations')).toEqual([{ n: 3 }]);
  });

  it('refuse, naming the file, an applied migration whose file was edited since', async () => {
    const url = await createTestDatabase('template0');
    const dir = await migrationsDir({ '0001_widgets.sql': TABLE });
    await migrate(url, log, dir);
    await writeFile(path.join(dir, '0001_widgets.sql'), `${TABLE}\ncreate table more (id int);`);
    await writeFile(path.join(dir, '0002_later.sql'), 'create table later (id int);');
    await expect(migrate(url, log, dir)).rejects.toThrow(
      /migrations\/0001_widgets\.sql changed after the database applied it/,
    );
    expect(await query(url, `select tablename from pg_tables where tablename = 'later'`)).toEqual([]);
  });

  it('record the checksums of a database migrated before checksums were kept, from the files', async () => {
    const url = await createTestDatabase();
    await query(url, 'alter table schema_migrations drop column checksum');
    expect(await migrate(url, log)).toEqual([]);
    const rows = await query(url, 'select name, checksum from schema_migrations order by version');
    const files = await readMigrations();
    expect(rows).toEqual(files.map((file) => ({ name: file.name, checksum: checksumOf(file.sql) })));
  });

  it('npm run migrate exits 1 naming an applied migration whose file was edited', async () => {
    const url = await createTestDatabase();
    await query(url, `update schema_migrations set checksum = 'before-the-edit' where version = 7`);
    const result = spawnSync(process.execPath, ['src/processes/release.ts'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: url,
        WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('release failed: migrations/0007_observed_shapes.sql changed after');
  });
});
