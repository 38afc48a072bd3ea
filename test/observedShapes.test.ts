import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from './helpers/app.ts';
import { paymentEvent } from './helpers/deliveries.ts';
import { deliver, drain, settle } from './helpers/fixtures.ts';
import { observedBodies, observedFixtureNames } from './helpers/observed.ts';
import { startSimulator } from './helpers/simulator.ts';

// Every variation of DESIGN.md's "What the provider actually sends", replayed through POST /webhooks and
// the real worker, then reconciled against fee configurations synced from the provider simulator.
const ACCOUNT = 'acc_observed';
const auth = { Authorization: `Bearer ${API_TOKEN}` };
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;

async function runJob(name: string) {
  const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send({});
  expect(response.status).toBe(202);
  for (let tries = 0; tries < 400; tries++) {
    const { rows } = await t.pool.query(
      `select count(*)::int as n from pgboss.job
        where name in ($1, 'reconcile-payment', 'process-event') and state in ('created', 'retry', 'active')`,
      [name],
    );
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not finish`);
}

beforeAll(async () => {
  provider = await startSimulator();
  const ids: Record<string, string> = {};
  for (const [feeType, variable_rate, transaction_fee_cents, fee_cap_cents] of [
    ['processing_ecomm', 2.9, 30, null],
    ['processing_card_present', 2.6, 10, null],
    ['processing_ach', 0.8, 0, 500],
    ['processing_ach_expedited', 1.5, 0, null],
    ['visa_brand_ecomm', 2.75, 30, null],
    ['platform', 0.5, 0, null],
  ] as const) {
    const created = provider.simulator.store.create(ACCOUNT, feeType, {
      variable_rate,
      transaction_fee_cents,
      fee_cap_cents,
      effective_start: '2026-10-01T00:00:00.000Z',
    });
    ids[feeType] = created.id;
  }
  t = await startTestApp({ worker: true, env: provider.env });
  await deliver(
    t.app,
    observedFixtureNames().flatMap((name) => observedBodies(name, ids)),
  );
  await drain(t);
  // The sync reconciles every payment of the account once the configurations are known.
  await runJob('fee-configuration-sync');
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

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

  it('projects disputes, links them from the payment, and resolves dispute_open once won', async () => {
    const won = await t.pool.query(`select code, status from findings where subject_id = 'dp_obs_won'`);
    expect(won.rows).toEqual([{ code: 'dispute_open', status: 'open' }]);
    const closed = paymentEvent({
      account_id: ACCOUNT,
      event_name: 'payment.dispute.closed',
      data: {
        id: 'dp_obs_won',
        payment_id: 'py_obs_disputed',
        amount: 10000,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'won',
        created_at: '2026-11-03T09:00:00Z',
        updated_at: '2026-11-10T09:00:00Z',
      },
    });
    await deliver(t.app, [JSON.stringify(closed)]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select id, payment_id, amount, currency, reason, to_char(due_date, 'YYYY-MM-DD') as due_date, status
         from disputes order by id`,
    );
    expect(rows).toEqual([
      {
        id: 'dp_obs_forfeit',
        payment_id: 'py_obs_disputed',
        amount: 1300,
        currency: 'usd',
        reason: 'duplicate',
        due_date: '2026-11-20',
        status: 'forfeited',
      },
      {
        id: 'dp_obs_lost',
        payment_id: 'py_obs_lost_payment',
        amount: 4200,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'lost',
      },
      {
        id: 'dp_obs_open',
        payment_id: 'py_obs_disputed',
        amount: 2500,
        currency: 'usd',
        reason: 'product_not_received',
        due_date: '2026-11-20',
        status: 'needs_response',
      },
      {
        id: 'dp_obs_won',
        payment_id: 'py_obs_disputed',
        amount: 10000,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'won',
      },
    ]);
    const detail = await request(t.app).get('/api/payments/py_obs_disputed').set(auth);
    expect(detail.status).toBe(200);
    expect(detail.body.data.disputes.map((item: { id: string }) => item.id).sort()).toEqual([
      'dp_obs_forfeit',
      'dp_obs_open',
      'dp_obs_won',
    ]);
    const resolved = await t.pool.query(`select code, status from findings where subject_id = 'dp_obs_won'`);
    expect(resolved.rows).toEqual([{ code: 'dispute_open', status: 'resolved' }]);
    const open = await t.pool.query(`select details from findings where subject_id = 'dp_obs_open'`);
    expect(open.rows[0].details).toMatchObject({
      amount: 2500,
      reason: 'product_not_received',
      due_date: '2026-11-20',
    });
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
      { field: 'unprojected_event', value: 'payout.paid', deliveries: 1 },
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
        'payout.paid': 1,
      },
    });
    const metrics = await request(t.app).get('/metrics');
    expect(metrics.text).toContain('tally_unknown_values{field="payment.payment_mode"} 2');
    expect(metrics.text).not.toMatch(/tally_unknown_values\{[^}]*bnpl/);
  });

  it('lists disputes with filters and cursor pagination', async () => {
    const page = async (query: string) => {
      const response = await request(t.app).get(`/api/disputes?${query}`).set(auth);
      expect(response.status).toBe(200);
      return response.body;
    };
    const lost = await page('status=lost');
    expect(lost.data).toEqual([
      expect.objectContaining({
        id: 'dp_obs_lost',
        payment_id: 'py_obs_lost_payment',
        account_id: ACCOUNT,
        amount: 4200,
        currency: 'usd',
        due_date: '2026-11-20',
        status: 'lost',
      }),
    ]);
    const first = await page(`account_id=${ACCOUNT}&limit=2`);
    expect(first.data).toHaveLength(2);
    expect(first.page_info.has_next).toBe(true);
    const second = await page(`account_id=${ACCOUNT}&limit=2&after_cursor=${first.page_info.end_cursor}`);
    const all = [...first.data, ...second.data].map((item: { id: string }) => item.id).sort();
    expect(all).toEqual(['dp_obs_forfeit', 'dp_obs_lost', 'dp_obs_open', 'dp_obs_won']);
    expect((await page('account_id=acc_nobody')).data).toEqual([]);
    const bad = await request(t.app).get('/api/disputes?status=%00').set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^status:/);
  });

  it('a dispute closed before it was opened still ends closed, whatever the delivery order', async () => {
    const event = (name: string, status: string, updatedAt: string) =>
      JSON.stringify(
        paymentEvent({
          account_id: ACCOUNT,
          event_name: name,
          data: {
            id: 'dp_obs_reordered',
            payment_id: 'py_obs_disputed',
            amount: 700,
            currency: 'usd',
            status,
            updated_at: updatedAt,
          },
        }),
      );
    await deliver(t.app, [
      event('payment.dispute.closed', 'lost', '2026-11-09T00:00:00Z'),
      event('payment.dispute.created', 'needs_response', '2026-11-03T00:00:00Z'),
    ]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select d.status, f.code, f.status as finding_status from disputes d
         join findings f on f.subject_id = d.id where d.id = 'dp_obs_reordered'`,
    );
    expect(rows).toEqual([{ status: 'lost', code: 'dispute_lost', finding_status: 'open' }]);
  });
});
