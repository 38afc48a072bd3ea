import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sequenceChanges } from '../../src/changes/sequenceChanges.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { type ChangeBody, insertChangeRow, readWholeFeed } from '../helpers/changes.ts';

const WRITERS = 4;
const CHANGES_PER_WRITER = 30;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/**
 * A writer on its own connection: each transaction inserts a change, then waits a random time before it
 * commits, so rows inserted later by other writers commit first.
 */
async function write(writer: number, clients: pg.Client[]): Promise<void> {
  const client = clients[writer] as pg.Client;
  for (let index = 0; index < CHANGES_PER_WRITER; index += 1) {
    await client.query('begin');
    await insertChangeRow(client, { objectId: `py_w${writer}_${index}` });
    await sleep(Math.random() * 40);
    await client.query('commit');
    await sleep(Math.random() * 10);
  }
}

it('a follower using wait sees every change once, in seq order, while four writers commit out of row order', async () => {
  const clients = Array.from({ length: WRITERS }, () => new pg.Client({ connectionString: t.databaseUrl }));
  await Promise.all(clients.map((client) => client.connect()));
  let writing = true;
  // The worker's sequencing, faster than its interval, racing the feed's own on-demand runs.
  const sequencing = (async () => {
    while (writing) {
      await sequenceChanges(t.pool);
      await sleep(5);
    }
  })();
  const seen: ChangeBody[] = [];
  const follower = (async () => {
    let after: string | null = null;
    for (;;) {
      const cursor: string = after === null ? '' : `&after=${after}`;
      const response = await request(t.app).get(`/api/changes?limit=7&wait=1${cursor}`).set(auth);
      expect(response.status).toBe(200);
      seen.push(...response.body.data);
      // An empty answer keeps the cursor it was given.
      if (response.body.data.length === 0 && after !== null)
        expect(response.body.page_info.end_cursor).toBe(after);
      after = response.body.page_info.end_cursor;
      if (!writing && response.body.data.length === 0) return;
    }
  })();
  await Promise.all(clients.map((_client, writer) => write(writer, clients)));
  const { rows } = await t.pool.query<{ inserted: number }>('select count(*)::int as inserted from changes');
  writing = false;
  await sequencing;
  await follower;
  await Promise.all(clients.map((client) => client.end()));

  const total = WRITERS * CHANGES_PER_WRITER;
  expect(rows[0]?.inserted).toBe(total);
  const everything = await readWholeFeed(t);
  expect(everything).toHaveLength(total);
  expect(new Set(everything.map((change) => change.object_id)).size).toBe(total);
  expect(seen.map((change) => change.id)).toEqual(everything.map((change) => change.id));
  const seqs = seen.map((change) => change.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(seqs).toEqual(Array.from({ length: total }, (_unused, index) => index + 1));
  // The proof needs commits out of row order: some change was numbered after a row inserted after it.
  const { rows: crossed } = await t.pool.query<{ crossed: number }>(
    `select count(*)::int as crossed from changes a join changes b on a.row_id < b.row_id and a.seq > b.seq`,
  );
  expect(crossed[0]?.crossed).toBeGreaterThan(0);
});
