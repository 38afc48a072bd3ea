import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/pool.ts';
import { withReportSnapshot } from '../../src/reports/withReportSnapshot.ts';
import { createTestDatabase } from '../helpers/database.ts';

// A report's read `alongside` its own queries: on a second connection in the same snapshot when the pool has
// one to give at once, on the report's own connection when it has not.
let url: string;
let writer: pg.Pool;
beforeAll(async () => {
  url = await createTestDatabase();
  writer = new pg.Pool({ connectionString: url });
  await writer.query('create table seen (n int)');
});
afterAll(() => writer.end());

const count = async (db: Queryable) =>
  (await db.query<{ n: number }>('select count(*)::int as n from seen')).rows[0]?.n;
const backend = async (db: Queryable) =>
  (await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;

describe('a report’s read alongside its own', () => {
  it('runs on a second connection and sees the report’s snapshot, not a row committed after it', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const result = await withReportSnapshot(pool, async (client, alongside) => {
        const before = await count(client);
        await writer.query('insert into seen values (1)');
        const beside = await alongside(async (db) => ({ rows: await count(db), pid: await backend(db) }));
        return { before, beside, pid: await backend(client), after: await count(writer) };
      });
      expect(result.beside.rows).toBe(result.before);
      expect(result.after).toBe((result.before ?? 0) + 1);
      expect(result.beside.pid).not.toBe(result.pid);
    } finally {
      await pool.end();
    }
  });

  it('runs on the report’s own connection when the pool has none to spare, and never waits for one', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const result = await withReportSnapshot(pool, async (client, alongside) => ({
        pid: await backend(client),
        beside: await alongside(backend),
      }));
      expect(result.beside).toBe(result.pid);
    } finally {
      await pool.end();
    }
  });

  it('fails the report with the second connection’s error, and leaves no connection taken', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      await expect(
        withReportSnapshot(pool, async (_client, alongside) =>
          alongside((db) => db.query('select * from nowhere')),
        ),
      ).rejects.toThrow(/relation "nowhere" does not exist/);
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
