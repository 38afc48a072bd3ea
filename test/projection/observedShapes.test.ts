import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, type TestApp } from '../helpers/app.ts';
import { startObservedApp } from '../helpers/observed.ts';

// The shapes docs/webhooks.md lists under "What Tally accepts": every variation replayed through POST /webhooks and the
// real worker, then reconciled against fee configurations synced from the provider simulator.
let observed: Awaited<ReturnType<typeof startObservedApp>>;
let t: TestApp;
let auth: Record<string, string>;

beforeAll(async () => {
  observed = await startObservedApp();
  ({ t, auth } = observed);
});
afterAll(() => observed.close());

const openFindings = async () => {
  const { rows } = await t.pool.query(
    `select code, severity, subject_type, subject_id, currency, expected, actual from findings
      where status = 'open' and code not like 'fee_configuration_%' order by code, subject_id`,
  );
  return rows;
};

describe('what the provider actually sends', () => {
  it('every delivery of every variation is processed, none failed', async () => {
    const { rows } = await t.pool.query(`select status, count(*)::int as n from events group by status`);
    expect(rows).toEqual([{ status: 'processed', n: 39 }]);
  });

  it('raises exactly the findings the facts call for, with severity and cents', async () => {
    const dispute = (code: string, severity: string, id: string, amount: number) => ({
      code,
      severity,
      subject_type: 'dispute',
      subject_id: id,
      currency: 'usd',
      expected: null,
      actual: amount,
    });
    const ach = (id: string, code: string, severity = 'warning') => ({
      code: 'ach_return',
      severity,
      subject_type: 'payment',
      subject_id: id,
      currency: 'usd',
      expected: null,
      actual: code,
    });
    expect(await openFindings()).toEqual([
      ach('py_obs_ach_account_closed', 'ACCOUNT_CLOSED'),
      ach('py_obs_ach_account_frozen', 'ACCOUNT_FROZEN'),
      ach('py_obs_ach_bank_account_restricted', 'BANK_ACCOUNT_RESTRICTED'),
      ach('py_obs_ach_late', 'INSUFFICIENT_FUNDS', 'error'),
      ach('py_obs_ach_no_account', 'NO_ACCOUNT'),
      ach('py_obs_ach_uncharged', 'INVALID_ACH_ROUTING_NUMBER'),
      {
        code: 'checkout_fee_mismatch',
        severity: 'error',
        subject_type: 'checkout',
        subject_id: 'checkout_legacy_7',
        currency: 'usd',
        expected: { platform_fee: 100 },
        actual: { platform_fee: 80 },
      },
      dispute('dispute_lost', 'error', 'dp_obs_forfeit', 1300),
      dispute('dispute_lost', 'error', 'dp_obs_lost', 4200),
      dispute('dispute_open', 'warning', 'dp_obs_open', 2500),
      dispute('dispute_open', 'warning', 'dp_obs_won', 10000),
    ]);
    // A bank account priced as online card is caught: the method decides ACH, whatever the mode says.
    const { rows } = await t.pool.query(
      `select code, subject_id, expected, actual from findings where code like 'fee_configuration_%'`,
    );
    expect(rows).toEqual([
      {
        code: 'fee_configuration_not_applicable',
        subject_id: 'pyfee_obs_bank_wrong_type_proc',
        expected: 'processing_ach',
        actual: 'processing_ecomm',
      },
    ]);
  });

  it('classifies ACH failures from either field, keeps the sentence, and takes handed-back fees as expected', async () => {
    const response = await request(t.app)
      .get('/api/ach-returns?category=account_problem&limit=100')
      .set(auth);
    const closed = response.body.data.find(
      (item: { payment_id: string }) => item.payment_id === 'py_obs_ach_account_closed',
    );
    expect(closed).toMatchObject({
      code: 'ACCOUNT_CLOSED',
      known: true,
      late: false,
      retryable: false,
      error_code: 'account_closed',
      description: "The customer's bank account has been closed.",
      amount: 10000,
    });
    const late = await request(t.app).get('/api/ach-returns?code=insufficient_funds').set(auth);
    expect(late.body.data).toMatchObject([
      { payment_id: 'py_obs_ach_late', late: true, retryable: true, category: 'funds' },
    ]);
    const { rows } = await t.pool.query(
      `select id, method_kind, payment_mode, status, returned, amount_returned from payments
        where id in ('py_obs_ach_account_closed', 'py_obs_void') order by id`,
    );
    expect(rows).toEqual([
      {
        id: 'py_obs_ach_account_closed',
        method_kind: 'ach',
        payment_mode: 'ecom',
        status: 'failed',
        returned: true,
        amount_returned: 10000,
      },
      {
        id: 'py_obs_void',
        method_kind: 'card',
        payment_mode: 'ecom',
        status: 'canceled',
        returned: true,
        amount_returned: 10000,
      },
    ]);
  });

  it('payment modes: bnpl and apple_pay are kept verbatim and their fees counted unverified, never a mismatch', async () => {
    const { rows } = await t.pool.query(
      `select p.id, p.payment_mode, p.method_kind, r.unverified from payments p
         join payment_reconciliations r on r.payment_id = p.id
        where p.id in ('py_obs_apple_pay', 'py_obs_bnpl', 'py_obs_card_present', 'py_obs_bank_ecom') order by p.id`,
    );
    expect(rows).toEqual([
      { id: 'py_obs_apple_pay', payment_mode: 'apple_pay', method_kind: 'other', unverified: 1 },
      { id: 'py_obs_bank_ecom', payment_mode: 'ecom', method_kind: 'ach', unverified: 0 },
      { id: 'py_obs_bnpl', payment_mode: 'bnpl', method_kind: 'other', unverified: 1 },
      { id: 'py_obs_card_present', payment_mode: 'card_present', method_kind: 'card_present', unverified: 0 },
    ]);
  });

  it('loose formats and other statuses are stored normalized, the rest kept verbatim', async () => {
    const payment = await t.pool.query(
      `select status, card_brand, snapshot from payments where id = 'py_obs_loose'`,
    );
    expect(payment.rows[0]).toMatchObject({ status: 'refunded', card_brand: 'jcb' });
    expect(payment.rows[0].snapshot).toMatchObject({
      application_fee_rate_id: 'afr_obs_loose',
      application_fee: { id: 'fee_obs_loose' },
      payment_method: { card: { acct_last_four: 4242 }, customer_id: 'null' },
    });
    const refunds = await t.pool.query(
      `select id, status, reason from refunds where payment_id = 'py_obs_loose' order by id`,
    );
    expect(refunds.rows).toEqual([
      { id: 're_obs_loose_canceled', status: 'canceled', reason: null },
      { id: 're_obs_loose_ok', status: 'succeeded', reason: null },
    ]);
    const checkouts = await t.pool.query(
      `select id, status, currency, payment_id, fees from checkouts order by id`,
    );
    expect(checkouts.rows).toEqual([
      {
        id: 'checkout_legacy_7',
        status: 'completed',
        currency: 'usd',
        payment_id: 'py_obs_checkout_short',
        fees: [{ type: 'platform_fee', amount: 100 }],
      },
      { id: 'cho_obs_attempted', status: 'attempted', currency: 'usd', payment_id: null, fees: null },
      { id: 'cho_obs_expired', status: 'expired', currency: 'cad', payment_id: null, fees: null },
      {
        id: 'cho_obs_fees',
        status: 'completed',
        currency: 'usd',
        payment_id: 'py_obs_checkout_ok',
        fees: [
          { type: 'processing_fee', amount: 295 },
          { type: 'platform_fee', amount: 150 },
        ],
      },
    ]);
  });

  it('counts unknown values by field and unprojected families by name, never failing them', async () => {
    const { rows } = await t.pool.query(
      `select field, value, deliveries::int from unknown_values order by field, value`,
    );
    expect(rows).toEqual([
      { field: 'payment.card_brand', value: 'jcb', deliveries: 1 },
      { field: 'payment.payment_mode', value: 'apple_pay', deliveries: 1 },
      { field: 'payment.payment_mode', value: 'bnpl', deliveries: 1 },
      { field: 'unprojected_event', value: 'payment.dispute_evidence.created', deliveries: 1 },
      { field: 'unprojected_event', value: 'payment_intent.succeeded', deliveries: 1 },
      { field: 'unprojected_event', value: 'payment_method.bin_mapped', deliveries: 1 },
      { field: 'unprojected_event', value: 'payment_method.created', deliveries: 1 },
    ]);
    const status = await request(t.app).get('/api/status').set(auth);
    expect(status.body.data.unknown_values).toEqual({
      'payment.card_brand': { jcb: 1 },
      'payment.payment_mode': { apple_pay: 1, bnpl: 1 },
      unprojected_event: {
        'payment.dispute_evidence.created': 1,
        'payment_intent.succeeded': 1,
        'payment_method.bin_mapped': 1,
        'payment_method.created': 1,
      },
    });
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_unknown_values{field="payment.payment_mode"} 2');
    expect(metrics.text).not.toMatch(/tally_unknown_values\{[^}]*bnpl/);
  });
});
