import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Backfill, runBackfills } from '../../src/db/backfill.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../helpers/database.ts';

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

// `times_filled` counts how often each row was filled: a batch applied twice would show as 2.
const WIDGETS = `create table widgets (id bigint primary key, code text not null, code_upper text,
                                       times_filled integer not null default 0);
  insert into widgets (id, code) select n, 'w' || n from generate_series(1, 50000) n;`;

const FILL_WIDGETS: Backfill = {
  name: 'widgets_code_upper',
  table: 'widgets',
  key: 'id',
  keyType: 'bigint',
  update: `update widgets set code_upper = upper(code), times_filled = times_filled + 1
            where id between $1::bigint and $2::bigint`,
  batchSize: 5000,
};

describe('backfills', () => {
  it('resume after a crash between batches, fill every row once and log their progress', async () => {
    const url = await createTestDatabase();
    await query(url, WIDGETS);
    const crashed = capturedLog();
    await expect(
      runBackfills(url, crashed.log, [FILL_WIDGETS], {
        afterBatch: (progress) => {
          if (progress.rows === 15000) throw new Error('killed between batches');
        },
      }),
    ).rejects.toThrow('killed between batches');
    expect(crashed.lines.map((line) => line.rows)).toEqual([5000, 10000, 15000]);
    expect(
      await query(
        url,
        `select name, last_key, rows_done::int, finished_at from schema_backfills where name = 'widgets_code_upper'`,
      ),
    ).toEqual([{ name: 'widgets_code_upper', last_key: '15000', rows_done: 15000, finished_at: null }]);
    expect(await query(url, 'select count(*)::int as n from widgets where code_upper is not null')).toEqual([
      { n: 15000 },
    ]);

    const resumed = capturedLog();
    await runBackfills(url, resumed.log, [FILL_WIDGETS]);
    const progress = resumed.lines.filter((line) => line.msg === 'backfill progress');
    expect(progress.map((line) => [line.rows, line.updated, line.lastKey])).toEqual(
      [20000, 25000, 30000, 35000, 40000, 45000, 50000].map((rows) => [rows, rows, String(rows)]),
    );
    expect(resumed.lines.at(-1)).toMatchObject({
      msg: 'backfill finished',
      backfill: 'widgets_code_upper',
      rows: 50000,
    });
    expect(
      await query(
        url,
        `select times_filled, count(*)::int as n from widgets where code_upper = upper(code) group by 1`,
      ),
    ).toEqual([{ times_filled: 1, n: 50000 }]);

    const again = capturedLog();
    await runBackfills(url, again.log, [FILL_WIDGETS]);
    expect(again.lines).toEqual([]);
  });

  it('run once when two releases run the same backfill at once, walking a text key', async () => {
    const url = await createTestDatabase();
    await query(
      url,
      `create table gadgets (id text primary key, filled integer not null default 0);
       insert into gadgets select 'gd_' || lpad(n::text, 5, '0') from generate_series(1, 3000) n;`,
    );
    const fillGadgets: Backfill = {
      name: 'gadgets_filled',
      table: 'gadgets',
      key: 'id',
      keyType: 'text',
      update: 'update gadgets set filled = filled + 1 where id between $1::text and $2::text',
      batchSize: 250,
    };
    const log = createLogger('silent');
    await Promise.all([runBackfills(url, log, [fillGadgets]), runBackfills(url, log, [fillGadgets])]);
    expect(await query(url, 'select filled, count(*)::int as n from gadgets group by 1')).toEqual([
      { filled: 1, n: 3000 },
    ]);
    expect(
      await query(url, `select rows_done::int, last_key from schema_backfills where name = 'gadgets_filled'`),
    ).toEqual([{ rows_done: 3000, last_key: 'gd_03000' }]);
  });
});
