import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // A delivery the database refuses, to see that it fails alone and not its batch.
  await t.pool.query(`
    create function refuse_poison() returns trigger language plpgsql as $$
    begin
      if new.event_id = 'evt_poison' then raise exception 'poison delivery'; end if;
      return new;
    end $$;
    create trigger refuse_poison before insert on events for each row execute function refuse_poison();`);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events cascade');
});

it('concurrent deliveries share statements, and each is stored waiting for the worker', async () => {
  const events = Array.from({ length: 100 }, () => paymentEvent());
  const responses = await Promise.all(events.map((event) => postSigned(t.app, event)));
  expect(responses.map((response) => response.status)).toEqual(Array(100).fill(200));
  const rows = await t.pool.query(`select status, xmin::text as tx from events`);
  expect(rows.rows).toHaveLength(100);
  // Rows committed by one transaction share its id (xmin): fewer transactions than deliveries.
  expect(new Set(rows.rows.map((row) => row.tx)).size).toBeLessThan(100);
  expect(rows.rows.map((row) => row.status)).toEqual(Array(100).fill('received'));
});

it('a redelivery in the same batch is a duplicate there too', async () => {
  const raw = JSON.stringify(paymentEvent());
  const responses = await Promise.all(Array.from({ length: 10 }, () => postSigned(t.app, raw)));
  expect(responses.filter((response) => response.body.duplicate === false)).toHaveLength(1);
  expect((await t.pool.query('select count(*)::int as n from events')).rows[0].n).toBe(1);
});

it('a delivery the database refuses gets 503 alone; the others in its batch are stored', async () => {
  const good = Array.from({ length: 30 }, () => paymentEvent());
  const poison = paymentEvent({ id: 'evt_poison' });
  const responses = await Promise.all(
    [...good.slice(0, 15), poison, ...good.slice(15)].map((event) => postSigned(t.app, event)),
  );
  expect(responses[15]?.status).toBe(503);
  expect(responses.filter((response) => response.status === 200)).toHaveLength(30);
  const stored = await t.pool.query('select event_id from events');
  expect(stored.rows.map((row) => row.event_id).sort()).toEqual(good.map((event) => event.id).sort());
});
