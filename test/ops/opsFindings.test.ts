import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passesLuhn } from '../../src/domain/cardNumbers.ts';
import { ACH_RETURN_CODES } from '../../src/reconciliation/achReturns.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
let t: TestApp;

const ach = (id: string, fields: Record<string, unknown>, eventName = 'payment.failed') =>
  JSON.stringify(
    paymentEvent({
      event_name: eventName,
      data: {
        id,
        amount: 5000,
        currency: 'usd',
        payment_method: { bank_account: { id: `pm_${id}` } },
        updated_at: '2026-11-05T00:00:00Z',
        ...fields,
      },
    }),
  );

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  const codes = Object.keys(ACH_RETURN_CODES);
  await deliver(t.app, [
    ...codes.map((code) => ach(`py_ach_${code}`, { status: 'failed', error_description: code })),
    ach('py_ach_unknown', { status: 'failed', error_description: 'R99_SOMETHING_NEW' }),
    ach('py_ach_late', { status: 'succeeded', updated_at: '2026-11-01T00:00:00Z' }, 'payment.succeeded'),
    ach('py_ach_late', {
      status: 'failed',
      error_description: 'INSUFFICIENT_FUNDS',
      updated_at: '2026-11-04T00:00:00Z',
    }),
    JSON.stringify(
      paymentEvent({
        event_name: 'payment.failed',
        data: {
          id: 'py_card_declined',
          amount: 5000,
          currency: 'usd',
          status: 'failed',
          error_description: 'card declined',
          payment_method: { card: { brand: 'visa' } },
        },
      }),
    ),
  ]);
  await settle(t);
});
afterAll(() => t.close());

const achReturns = async (query = '') => {
  const response = await request(t.app).get(`/api/ach-returns?limit=100${query}`).set(auth);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, unknown>[];
};

describe('ACH returns', () => {
  it('every code of the catalogue opens ach_return with its category and whether a retry can succeed', async () => {
    const all = await achReturns();
    expect(all).toHaveLength(Object.keys(ACH_RETURN_CODES).length + 2);
    for (const [code, entry] of Object.entries(ACH_RETURN_CODES)) {
      expect(all.find((item) => item.payment_id === `py_ach_${code}`)).toMatchObject({
        code,
        category: entry.category,
        retryable: entry.retryable,
        known: true,
        late: false,
        amount: 5000,
        currency: 'usd',
      });
    }
    expect(all.some((item) => item.payment_id === 'py_card_declined')).toBe(false);
  });

  it('keeps an unknown code verbatim and flags it', async () => {
    expect((await achReturns()).find((item) => item.payment_id === 'py_ach_unknown')).toMatchObject({
      code: 'R99_SOMETHING_NEW',
      known: false,
      category: 'unknown',
      retryable: false,
    });
  });

  it('marks a return after success as late, and filters by late, code and category', async () => {
    expect((await achReturns('&late=true')).map((item) => item.payment_id)).toEqual(['py_ach_late']);
    expect((await achReturns('&code=UNCOLLECTED_FUNDS')).map((item) => item.payment_id)).toEqual([
      'py_ach_UNCOLLECTED_FUNDS',
    ]);
    const funds = (await achReturns('&category=funds')).map((item) => item.payment_id).sort();
    expect(funds).toEqual(['py_ach_INSUFFICIENT_FUNDS', 'py_ach_UNCOLLECTED_FUNDS', 'py_ach_late']);
    const late = await t.pool.query(
      `select severity from findings where code = 'ach_return' and subject_id = 'py_ach_late'`,
    );
    expect(late.rows).toEqual([{ severity: 'error' }]);
    expect((await request(t.app).get('/api/ach-returns?late=maybe').set(auth)).status).toBe(400);
  });
});

describe('checkout fees', () => {
  const checkout = (id: string, paymentId: string, fees: { type: string; amount: number }[]) =>
    JSON.stringify(
      paymentEvent({
        event_name: 'checkout.completed',
        data: {
          id,
          amount: 3000,
          payment_amount: 3000,
          status: 'completed',
          payment: { fees },
          payment_id: paymentId,
        },
      }),
    );
  const paid = (id: string, checkoutId: string, fee: { amount: number; source: string | null }) =>
    JSON.stringify(
      paymentEvent({
        event_name: 'payment.succeeded',
        data: {
          id,
          amount: 3000,
          currency: 'usd',
          status: 'succeeded',
          checkout_id: checkoutId,
          fee_amount: fee.amount,
          fees: [
            {
              id: `pyfee_${id}`,
              type: 'platform_fee',
              amount: fee.amount,
              remaining_amount: fee.amount,
              source_configuration_id: fee.source,
              source_fee_type: fee.source ? 'platform' : null,
            },
          ],
        },
      }),
    );

  it('a fee set on the checkout that reaches its payment unchanged and explicit raises nothing; otherwise checkout_fee_mismatch', async () => {
    await deliver(t.app, [
      paid('py_co_ok', 'cho_ok', { amount: 100, source: null }),
      checkout('cho_ok', 'py_co_ok', [{ type: 'platform_fee', amount: 100 }]),
      // The checkout arrives before its payment here; the payment's arrival triggers the check.
      checkout('cho_diff', 'py_co_diff', [{ type: 'platform_fee', amount: 100 }]),
      paid('py_co_diff', 'cho_diff', { amount: 90, source: null }),
      checkout('cho_cfg', 'py_co_cfg', [{ type: 'platform_fee', amount: 100 }]),
      paid('py_co_cfg', 'cho_cfg', { amount: 100, source: 'sfc_platform' }),
    ]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select subject_id, expected, actual from findings where code = 'checkout_fee_mismatch' and status = 'open' order by subject_id`,
    );
    expect(rows).toEqual([
      { subject_id: 'cho_cfg', expected: { platform_fee: 100 }, actual: { platform_fee: null } },
      { subject_id: 'cho_diff', expected: { platform_fee: 100 }, actual: { platform_fee: 90 } },
    ]);
  });
});

describe('forwarding outcomes', () => {
  const forwarded = (eventName: string, fields: Record<string, unknown>) =>
    JSON.stringify(
      paymentEvent({
        event_name: eventName,
        data: { id: 'fwd_ops', payment_method_id: 'pm_ops', url: 'https://dest.example.com/pay', ...fields },
      }),
    );

  it('a second, different terminal outcome opens forwarding_outcome_conflict; no card number is stored', async () => {
    await deliver(t.app, [
      forwarded('forwarding_request.completed', {
        status: 'completed',
        response: { status_code: 200, body: { echo: '4242 4242 4242 4242' } },
        request: { body: { number: '4111111111111111' } },
        updated_at: '2026-11-02T10:00:00Z',
      }),
      forwarded('forwarding_request.completed', {
        status: 'completed',
        response: { status_code: 200 },
        updated_at: '2026-11-02T10:00:00Z',
      }),
    ]);
    await settle(t);
    const none = await t.pool.query(
      `select count(*)::int as n from findings where code = 'forwarding_outcome_conflict'`,
    );
    expect(none.rows[0].n).toBe(0);
    await deliver(t.app, [
      forwarded('forwarding_request.failed', {
        status: 'failed',
        failure_reason: 'connection_error',
        updated_at: '2026-11-02T10:01:00Z',
      }),
    ]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select subject_id, actual, status from findings where code = 'forwarding_outcome_conflict'`,
    );
    expect(rows).toEqual([{ subject_id: 'fwd_ops', actual: ['completed', 'failed'], status: 'open' }]);

    for (const table of ['forwarding_requests', 'forwarding_outcomes', 'findings', 'alerts']) {
      const dump = await t.pool.query(`select t::text as row from ${table} t`);
      const pans = dump.rows.flatMap((row) =>
        (row.row.match(/\d(?:[ -]?\d){12,18}/g) ?? []).filter((run: string) =>
          passesLuhn(run.replace(/[ -]/g, '')),
        ),
      );
      expect({ table, pans }).toEqual({ table, pans: [] });
    }
  });
});
