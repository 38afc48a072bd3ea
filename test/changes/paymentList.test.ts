import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { processNextEvents } from '../../src/projection/processStoredEvent.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const at = (day: number) => new Date(Date.UTC(2026, 10, day, 10)).toISOString();

// id, account, status, day of its snapshot
const PAYMENTS = [
  ['py_l1', 'acc_a', 'succeeded', 1],
  ['py_l2', 'acc_a', 'failed', 2],
  ['py_l3', 'acc_b', 'succeeded', 3],
  ['py_l4', 'acc_a', 'succeeded', 4],
  ['py_l5', 'acc_b', 'pending', 5],
] as const;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  for (const [id, account, status, day] of PAYMENTS) {
    const data = {
      id,
      account_id: account,
      amount: 100,
      currency: 'usd',
      status,
      created_at: at(day),
      updated_at: at(day),
    };
    expect(
      (await postSigned(t.app, paymentEvent({ id: `evt_${id}`, account_id: account, data }))).status,
    ).toBe(200);
  }
  await processNextEvents(t, 500);
});
afterAll(() => t.close());

const ids = (body: { data: { id: string }[] }) => body.data.map((payment) => payment.id);

it('lists every payment by id, descending, each as GET /api/payments/:id shows it', async () => {
  const response = await request(t.app).get('/api/payments').set(auth);
  expect(response.status).toBe(200);
  expect(ids(response.body)).toEqual(['py_l5', 'py_l4', 'py_l3', 'py_l2', 'py_l1']);
  const one = await request(t.app).get('/api/payments/py_l3').set(auth);
  expect(response.body.data[2]).toEqual(one.body.data);
  expect(response.body.page_info).toMatchObject({ has_previous: false, has_next: false });
});

it.each([
  ['account_id=acc_a', ['py_l4', 'py_l2', 'py_l1']],
  ['status=succeeded', ['py_l4', 'py_l3', 'py_l1']],
  [`updated_after=${encodeURIComponent(at(3))}`, ['py_l5', 'py_l4', 'py_l3']],
  ['updated_after=2026-11-04', ['py_l5', 'py_l4']],
  ['account_id=acc_b&status=pending', ['py_l5']],
  ['account_id=acc_none', []],
])('filters by %s', async (query, expected) => {
  const response = await request(t.app).get(`/api/payments?${query}`).set(auth);
  expect(response.status).toBe(200);
  expect(ids(response.body)).toEqual(expected);
});

it('pages with after_cursor and before_cursor, missing none', async () => {
  const first = await request(t.app).get('/api/payments?limit=2').set(auth);
  expect(ids(first.body)).toEqual(['py_l5', 'py_l4']);
  expect(first.body.page_info.has_next).toBe(true);
  const second = await request(t.app)
    .get(`/api/payments?limit=2&after_cursor=${first.body.page_info.end_cursor}`)
    .set(auth);
  expect(ids(second.body)).toEqual(['py_l3', 'py_l2']);
  const third = await request(t.app)
    .get(`/api/payments?limit=2&after_cursor=${second.body.page_info.end_cursor}`)
    .set(auth);
  expect(ids(third.body)).toEqual(['py_l1']);
  expect(third.body.page_info.has_next).toBe(false);
  const back = await request(t.app)
    .get(`/api/payments?limit=2&before_cursor=${second.body.page_info.start_cursor}`)
    .set(auth);
  expect(ids(back.body)).toEqual(['py_l5', 'py_l4']);
});

it.each([
  ['updated_after=yesterday', 'updated_after', 'invalid_parameter'],
  ['status=%00', 'status', 'invalid_parameter'],
  ['after_cursor=nonsense', 'after_cursor', 'invalid_cursor'],
])('refuses %s with 400 naming %s', async (query, name, code) => {
  const response = await request(t.app).get(`/api/payments?${query}`).set(auth);
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe(code);
  expect(response.body.error.message).toMatch(new RegExp(`^${name}: `));
});
