import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { processNextEvents, processStoredEvent } from '../../src/projection/processStoredEvent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';

// Postgres ends a deadlock by failing one of the transactions in it (40P01), and a serializable conflict the
// same way (40001). Here a trigger on payments raises that error for the first `failures` writes, so a batch
// meets it as it would meet a concurrent batch holding its rows.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events cascade');
  await t.pool.query('drop trigger if exists payments_conflict on payments');
});

async function failPaymentWrites(failures: number, code: string) {
  await t.pool.query('drop sequence if exists payments_conflicts; create sequence payments_conflicts');
  await t.pool.query(`create or replace function raise_payments_conflict() returns trigger language plpgsql as $$
    begin
      if nextval('payments_conflicts') <= ${failures} then
        raise exception 'deadlock detected' using errcode = '${code}';
      end if;
      return null;
    end $$`);
  await t.pool.query(`create or replace trigger payments_conflict before insert on payments
                      for each statement execute function raise_payments_conflict()`);
}

const delivery = (id: string) =>
  JSON.stringify(paymentEvent({ data: { id, amount: 100, currency: 'usd', status: 'succeeded' } }));

const states = async () =>
  (await t.pool.query('select status, attempts, error from events order by id')).rows;

it('a batch that loses a deadlock, or a serialization conflict, is projected again at once, not failed', async () => {
  for (const code of ['40P01', '40001']) {
    await t.pool.query('truncate events cascade');
    await failPaymentWrites(2, code);
    await deliver(t.app, [delivery(`py_conflict_${code}`)]);
    const { claimed, failures } = await processNextEvents(t, 10);
    expect({ claimed, failures: failures.size }).toEqual({ claimed: 1, failures: 0 });
    expect(await states()).toEqual([{ status: 'processed', attempts: 0, error: null }]);
    const payment = await t.pool.query('select status from payments where id = $1', [`py_conflict_${code}`]);
    expect(payment.rows).toEqual([{ status: 'succeeded' }]);
  }
});

it('a batch that keeps losing gives way whole: nothing is marked failed, and the next claim projects it', async () => {
  await failPaymentWrites(3, '40P01');
  await deliver(t.app, [delivery('py_conflict_worker')]);
  await expect(processNextEvents(t, 10)).rejects.toMatchObject({ code: '40P01' });
  expect(await states()).toEqual([{ status: 'received', attempts: 0, error: null }]);
  expect((await processNextEvents(t, 10)).failures.size).toBe(0);
  expect(await states()).toEqual([{ status: 'processed', attempts: 0, error: null }]);
});

it('tally reprocess keeps a delivery that loses three times in a row as failed, with the reason', async () => {
  await failPaymentWrites(3, '40P01');
  await deliver(t.app, [delivery('py_conflict_reprocess')]);
  const { rows } = await t.pool.query<{ id: number }>('select id from events');
  await expect(processStoredEvent(t, rows[0]?.id as number)).rejects.toMatchObject({ code: '40P01' });
  expect(await states()).toEqual([{ status: 'failed', attempts: 1, error: 'deadlock detected' }]);
});
