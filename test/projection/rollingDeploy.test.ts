import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { runBackfills } from '../../src/db/backfill.ts';
import { BACKFILLS } from '../../src/db/backfills.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

// During a deploy the previous release's web and worker run beside this release's: its web stores a delivery
// as `received` with no queue entry, and its worker claims rows on the raw log itself. These statements are
// that release's own (src/ingest/queries.ts and src/projection/eventQueries.ts before the queue tables).
const PREVIOUS_WEB_INSERT = `insert into events (event_id, event_name, account_id, account_type, headers, raw_body,
                                                 body_sha256, status, received_at)
  values ($1, 'payment.created', 'acc_sub_1', 'test', '{}', convert_to($2, 'utf8'), $3, 'received', now())
  returning id`;
const PREVIOUS_WORKER_CLAIM = `select id from events
  where status = 'received' or (status = 'failed' and retry_at is not null and retry_at <= now())
  order by id limit 500 for update skip locked`;
const PREVIOUS_WORKER_DONE = `update events set status = 'processed', processed_at = now() where id = any($1::bigint[])`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events, event_queue, processed_events, payments cascade');
});

async function storeAsPreviousWeb(paymentId: string): Promise<number> {
  const raw = JSON.stringify(paymentEvent({ data: { id: paymentId, amount: 100, currency: 'usd' } }));
  const hash = createHash('sha256').update(raw).digest();
  const { rows } = await t.pool.query(PREVIOUS_WEB_INSERT, [`evt_${paymentId}`, raw, hash]);
  return rows[0].id;
}

const stateOf = async (id: number) =>
  (
    await t.pool.query(
      `select d.status, d.error, d.attempts, d.retry_at is not null as retrying, e.status as row_status,
              exists (select from event_queue q where q.id = d.id) as queued
         from deliveries d join events e on e.id = d.id where d.id = $1`,
      [id],
    )
  ).rows[0];

const paymentsProjected = async () =>
  (await t.pool.query('select id from payments order by id')).rows.map((row) => row.id);

async function runMoveBackfillAgain() {
  await t.pool.query('delete from schema_backfills where name = $1', [BACKFILLS[0]?.name]);
  await runBackfills(t.databaseUrl, t.log, BACKFILLS);
}

it("this release's worker projects what the previous release's web stored, and marks it on the row", async () => {
  const id = await storeAsPreviousWeb('py_previous_web');
  const { claimed, failures } = await processNextEvents(t, 100);
  expect([claimed, failures.size]).toEqual([1, 0]);
  expect(await stateOf(id)).toMatchObject({ status: 'processed', row_status: 'processed', queued: false });
  expect(await paymentsProjected()).toEqual(['py_previous_web']);
});

it("the previous release's worker never claims what this release's web queued", async () => {
  await deliver(t.app, [
    JSON.stringify(paymentEvent({ data: { id: 'py_new_web', amount: 1, currency: 'usd' } })),
  ]);
  const client = await t.pool.connect();
  try {
    await client.query('begin');
    expect((await client.query(PREVIOUS_WORKER_CLAIM)).rows).toEqual([]);
    await client.query('rollback');
  } finally {
    client.release();
  }
  expect((await processNextEvents(t, 100)).claimed).toBe(1);
  expect(await paymentsProjected()).toEqual(['py_new_web']);
});

it('the backfill moves waiting and failed rows across, attempts, error and retry time kept', async () => {
  const waiting = await storeAsPreviousWeb('py_was_waiting');
  const failed = await storeAsPreviousWeb('py_was_failed');
  const processed = await storeAsPreviousWeb('py_was_processed');
  await t.pool.query(
    `update events set status = 'failed', attempts = 2, error = 'invalid data: amount',
            retry_at = now() + interval '1 hour' where id = $1`,
    [failed],
  );
  await t.pool.query(PREVIOUS_WORKER_DONE, [[processed]]);
  await runMoveBackfillAgain();
  expect(await stateOf(waiting)).toMatchObject({ status: 'received', row_status: 'stored', queued: true });
  expect(await stateOf(failed)).toMatchObject({
    status: 'failed',
    row_status: 'stored',
    queued: false,
    attempts: 2,
    error: 'invalid data: amount',
    retrying: true,
  });
  expect(await stateOf(processed)).toMatchObject({ status: 'processed', row_status: 'processed' });
  // Moved rows are this release's worker's alone: the previous release's claim no longer sees them.
  const client = await t.pool.connect();
  try {
    await client.query('begin');
    expect((await client.query(PREVIOUS_WORKER_CLAIM)).rows).toEqual([]);
    await client.query('rollback');
  } finally {
    client.release();
  }
  expect((await processNextEvents(t, 100)).claimed).toBe(1);
  expect(await paymentsProjected()).toEqual(['py_was_waiting']);
});

it("the backfill waits for a row the previous release's worker holds, then leaves it processed", async () => {
  const held = await storeAsPreviousWeb('py_held');
  const previousWorker = await t.pool.connect();
  try {
    await previousWorker.query('begin');
    expect((await previousWorker.query(PREVIOUS_WORKER_CLAIM)).rows).toEqual([{ id: held }]);
    const backfill = runMoveBackfillAgain();
    // Waiting on the held row: not moved while the previous worker projects it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stateOf(held)).toMatchObject({ row_status: 'received', queued: false });
    await previousWorker.query(PREVIOUS_WORKER_DONE, [[held]]);
    await previousWorker.query('commit');
    await backfill;
  } finally {
    previousWorker.release();
  }
  expect(await stateOf(held)).toMatchObject({ status: 'processed', row_status: 'processed', queued: false });
  expect((await processNextEvents(t, 100)).claimed).toBe(0);
});
