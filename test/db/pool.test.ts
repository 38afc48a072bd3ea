import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../helpers/database.ts';

let url: string;
let admin: pg.Client;

beforeAll(async () => {
  url = await createTestDatabase();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(() => admin.end());

function capturedLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, messages: () => lines.map((line) => `${line.level} ${line.msg}`) };
}

/** Has the server end a client's connection, as a stopping database does, and waits until the client sees it. */
async function dropConnection(client: pg.PoolClient) {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const dropped = new Promise((resolve) => client.once('error', resolve));
  await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
  await dropped;
}

describe('the connection pool', () => {
  it('logs a checked-out connection the server drops, and the query that needed it fails', async () => {
    const { log, messages } = capturedLog();
    const pool = createPool(url, log, 1);
    const client = await pool.connect();
    await dropConnection(client);
    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    await pool.end();
    expect(messages()).toContain('40 database connection lost');
  });

  it('says nothing about a connection dropped while the pool is ending: it was being closed anyway', async () => {
    const { log, messages } = capturedLog();
    const pool = createPool(url, log, 1);
    const client = await pool.connect();
    // end() waits for the checked-out client; the server drops it in that moment.
    const ended = pool.end();
    await dropConnection(client);
    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    await ended;
    expect(messages()).toEqual([]);
  });
});
