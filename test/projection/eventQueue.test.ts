import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { listPaymentTimeline } from '../../src/ingest/timelineQueries.ts';
import { claimEventsToProcess, PROCESSING_ATTEMPTS } from '../../src/projection/eventQueries.ts';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

// The raw log is the worker's queue: these drive the claim directly, without the worker's loop.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events cascade');
});

const payments = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) =>
    JSON.stringify(
      paymentEvent({
        data: { id: `py_${prefix}_${index}`, amount: 100, currency: 'usd', status: 'succeeded' },
      }),
    ),
  );

it('two workers claiming at once take different deliveries, oldest first', async () => {
  await deliver(t.app, payments(6, 'split'));
  const first = await t.pool.connect();
  const second = await t.pool.connect();
  try {
    await first.query('begin');
    await second.query('begin');
    const a = (await claimEventsToProcess(first, 4)).map((event) => event.id);
    const b = (await claimEventsToProcess(second, 4)).map((event) => event.id);
    const all = (await t.pool.query('select id from events order by id')).rows.map((row) => row.id);
    expect(a).toEqual(all.slice(0, 4));
    expect(b).toEqual(all.slice(4));
  } finally {
    await first.query('rollback');
    await second.query('rollback');
    first.release();
    second.release();
  }
});

it('a worker that dies mid-batch releases its deliveries at once, and the next claim projects them', async () => {
  await deliver(t.app, payments(3, 'dies'));
  const dying = await t.pool.connect();
  await dying.query('begin');
  expect(await claimEventsToProcess(dying, 100)).toHaveLength(3);
  // Held: nobody else can take them while the worker lives.
  expect((await processNextEvents(t, 100)).claimed).toBe(0);
  dying.on('error', () => undefined);
  const { rows } = await dying.query('select pg_backend_pid() as pid');
  // pg_terminate_backend only signals: the backend, and the row locks it holds, go a moment later.
  await t.pool.query('select pg_terminate_backend($1)', [rows[0].pid]);
  dying.release(true);
  await vi.waitFor(async () => {
    const alive = await t.pool.query('select 1 from pg_stat_activity where pid = $1', [rows[0].pid]);
    expect(alive.rowCount).toBe(0);
  });

  expect((await processNextEvents(t, 100)).claimed).toBe(3);
  const statuses = await t.pool.query(`select status from events`);
  expect(statuses.rows.map((row) => row.status)).toEqual(['processed', 'processed', 'processed']);
  expect((await t.pool.query('select count(*)::int as n from payments')).rows[0].n).toBe(3);
  // The worker names each delivery's payment for the console's timeline; the webhook's insert did not.
  const named = await t.pool.query(`select payment_id from events order by id`);
  expect(named.rows.map((row) => row.payment_id)).toEqual(['py_dies_0', 'py_dies_1', 'py_dies_2']);
});

it('a delivery that keeps failing is retried with back-off, then stays failed and is no longer claimed', async () => {
  const bad = paymentEvent({
    data: { id: 'py_always_bad', amount: 'none', currency: 'usd', status: 'succeeded' },
  });
  await deliver(t.app, [JSON.stringify(bad)]);
  const attempts: { attempts: number; status: string; retrying: boolean }[] = [];
  for (let attempt = 1; attempt <= PROCESSING_ATTEMPTS; attempt += 1) {
    const { claimed, failures } = await processNextEvents(t, 100);
    expect([claimed, failures.size]).toEqual([1, 1]);
    const { rows } = await t.pool.query(
      `select attempts, status, retry_at is not null as retrying from events where event_id = $1`,
      [bad.id],
    );
    attempts.push(rows[0]);
    // Not due yet: the next claim finds nothing until its retry time, which the test brings forward.
    expect((await processNextEvents(t, 100)).claimed).toBe(0);
    await t.pool.query(`update events set retry_at = now() where retry_at is not null`);
  }
  expect(attempts).toEqual([
    { attempts: 1, status: 'failed', retrying: true },
    { attempts: 2, status: 'failed', retrying: true },
    { attempts: 3, status: 'failed', retrying: true },
    { attempts: 4, status: 'failed', retrying: true },
    { attempts: 5, status: 'failed', retrying: false },
  ]);
  expect((await processNextEvents(t, 100)).claimed).toBe(0);
  // A failed delivery is still on its payment's timeline, its body parsed from the raw bytes.
  const stored = await t.pool.query(`select payment_id from events where event_id = $1`, [bad.id]);
  expect(stored.rows[0]).toEqual({ payment_id: 'py_always_bad' });
  const timeline = await listPaymentTimeline(t.pool, 'py_always_bad');
  expect(timeline.map((entry) => [entry.event_id, entry.status, entry.body])).toEqual([
    [bad.id, 'failed', bad],
  ]);
});

it('a delivery the database refuses fails alone, and the rest of its claim is projected one at a time', async () => {
  // A statement of the batch fails: the batch is redone one delivery at a time, each under its own savepoint.
  await t.pool.query(`create function refuse_payment() returns trigger language plpgsql as $$
    begin if new.id = 'py_refused' then raise exception 'refused by test'; end if; return new; end $$`);
  await t.pool.query(
    'create trigger refuse_payment before insert on payments for each row execute function refuse_payment()',
  );
  try {
    await deliver(t.app, [
      ...payments(1, 'before'),
      ...payments(1, 'refused').map((body) => body.replaceAll('py_refused_0', 'py_refused')),
      ...payments(1, 'after'),
    ]);
    const { claimed, failures } = await processNextEvents(t, 100);
    expect(claimed).toBe(3);
    expect([...failures.values()].map(String)).toEqual([expect.stringContaining('refused by test')]);
    const { rows } = await t.pool.query(`select status, error from events order by id`);
    expect(rows).toEqual([
      { status: 'processed', error: null },
      { status: 'failed', error: expect.stringContaining('refused by test') },
      { status: 'processed', error: null },
    ]);
    const projected = await t.pool.query(
      `select id from payments where id in ('py_before_0', 'py_refused', 'py_after_0') order by id`,
    );
    expect(projected.rows.map((row) => row.id)).toEqual(['py_after_0', 'py_before_0']);
  } finally {
    await t.pool.query('drop trigger refuse_payment on payments');
    await t.pool.query('drop function refuse_payment');
  }
});

it("a body beyond Postgres's jsonb range is processed like any other, its raw bytes kept as received", async () => {
  // Valid JSON that jsonb refuses (a number beyond its range): the body is parsed in Node, never by Postgres.
  const huge = JSON.stringify(
    paymentEvent({ data: { id: 'py_huge', amount: 100, currency: 'usd', status: 'succeeded' } }),
  ).replace('"data":{', '"data":{"note":1e999999,');
  await deliver(t.app, [...payments(1, 'beside'), huge]);
  const { claimed, failures } = await processNextEvents(t, 100);
  expect([claimed, failures.size]).toEqual([2, 0]);
  const { rows } = await t.pool.query(
    `select status, convert_from(raw_body, 'utf8') as raw from events order by id`,
  );
  expect(rows.map((row) => row.status)).toEqual(['processed', 'processed']);
  expect(rows[1].raw).toBe(huge);
  const payment = await t.pool.query(`select amount from payments where id = 'py_huge'`);
  expect(payment.rows).toEqual([{ amount: 100 }]);
});

it('the timeline flags a delivery carrying the state of an earlier one, in any key order, failed ones too', async () => {
  const state = {
    id: 'py_twice',
    amount: 100,
    currency: 'usd',
    status: 'succeeded',
    metadata: { a: 1, b: [1] },
  };
  const reordered = {
    metadata: { b: [1], a: 1 },
    status: 'succeeded',
    currency: 'usd',
    amount: 100,
    id: 'py_twice',
  };
  const changed = { ...state, metadata: { a: 2, b: [1] } };
  const invalid = { id: 'py_twice', amount: 'none', currency: 'usd', status: 'succeeded' };
  const events = [state, reordered, changed, invalid, invalid].map((data) => paymentEvent({ data }));
  await deliver(
    t.app,
    events.map((event) => JSON.stringify(event)),
  );
  await processNextEvents(t, 100);
  const timeline = await listPaymentTimeline(t.pool, 'py_twice');
  expect(timeline.map((entry) => [entry.event_id, entry.status, entry.duplicate])).toEqual([
    [events[0]?.id, 'processed', false],
    [events[1]?.id, 'processed', true],
    [events[2]?.id, 'processed', false],
    [events[3]?.id, 'failed', false],
    [events[4]?.id, 'failed', true],
  ]);
});
