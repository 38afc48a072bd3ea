import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PROCESSING_DEFAULTS, startEventProcessing } from '../../src/projection/processingLoop.ts';
import { processStoredEvents } from '../../src/projection/processStoredEvent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const payment = (id: string) =>
  JSON.stringify(paymentEvent({ data: { id, amount: 100, currency: 'usd', status: 'succeeded' } }));

it('a delivery that makes its batch overrun the budget fails alone, for good, and the others are processed', async () => {
  // Slow, not broken: the database takes 0.8 s to store this one payment, over a budget of 0.5 s.
  await t.pool.query(`create function slow_payment() returns trigger language plpgsql as $$
    begin if new.id = 'py_slow' then perform pg_sleep(0.8); end if; return new; end $$`);
  await t.pool.query(
    'create trigger slow_payment before insert on payments for each row execute function slow_payment()',
  );
  await deliver(t.app, [payment('py_before'), payment('py_slow'), payment('py_after')]);
  const stopProcessing = startEventProcessing(
    { pool: t.pool, boss: t.boss, log: t.log },
    { ...PROCESSING_DEFAULTS, idleMilliseconds: 50, batchBudgetMilliseconds: 500 },
  );
  try {
    await vi.waitFor(
      async () => {
        const { rows } = await t.pool.query(
          `select count(*)::int as n from events where status = 'received'`,
        );
        expect(rows[0].n).toBe(0);
      },
      { timeout: 10_000, interval: 100 },
    );
  } finally {
    await stopProcessing();
  }
  const { rows } = await t.pool.query(`select payment_id, status, error, retry_at from events order by id`);
  expect(rows).toEqual([
    { payment_id: 'py_before', status: 'processed', error: null, retry_at: null },
    {
      payment_id: 'py_slow',
      status: 'failed',
      error: expect.stringMatching(
        /^took 0\.\d s to process, over the budget of 0\.5 s; not retried automatically \(tally reprocess --failed\)$/,
      ),
      retry_at: null,
    },
    { payment_id: 'py_after', status: 'processed', error: null, retry_at: null },
  ]);
  expect(t.logLines.join('')).toContain('process-event failed: delivery kept as failed');

  // Re-processed on a person's request (`tally reprocess --failed`), it is projected whatever it takes.
  const failed = await t.pool.query(`select id from events where status = 'failed'`);
  expect(await processStoredEvents(t, [failed.rows[0].id])).toEqual(new Map());
  const payments = await t.pool.query('select id from payments order by id');
  expect(payments.rows.map((row) => row.id)).toEqual(['py_after', 'py_before', 'py_slow']);
});
