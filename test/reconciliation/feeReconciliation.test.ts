import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain, settle as settleFixtures, waitForJobs } from '../helpers/fixtures.ts';
import { type Fee, pricedPaymentBody } from '../helpers/pricedPayments.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

const ACCOUNT = 'acc_loop';
const START = '2026-10-01T00:00:00.000Z';
const CREATED = '2026-11-01T12:00:00.000Z';
const auth = { Authorization: `Bearer ${API_TOKEN}` };

let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
const configs: Record<string, SimulatedConfiguration> = {};

function payment(id: string, fees: Fee[], fields: Record<string, unknown> = {}) {
  return pricedPaymentBody(
    configs,
    { accountId: ACCOUNT, id, amount: 1234, createdAt: CREATED, fees },
    fields,
  );
}

// 1,234 ¢ by visa online: visa brand 2.75 % + 30 = 63.935 → 64; platform 0.5 % = 6.17 → 6.
const correct = (prefix: string): Fee[] => [
  { id: `${prefix}_proc`, type: 'processing_fee', amount: 64, source: 'visa_brand_ecomm' },
  { id: `${prefix}_plat`, type: 'platform_fee', amount: 6, source: 'platform' },
];

async function openFindings() {
  const response = await request(t.app).get('/api/findings?status=open&limit=100').set(auth);
  expect(response.status).toBe(200);
  return (response.body.data as Record<string, unknown>[])
    .map((finding) => ({
      code: finding.code,
      subject_id: finding.subject_id,
      expected: finding.expected,
      actual: finding.actual,
    }))
    .sort((a, b) => `${a.code}${a.subject_id}`.localeCompare(`${b.code}${b.subject_id}`));
}

async function runJob(name: string) {
  const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send({});
  expect(response.status).toBe(202);
  await waitForJobs(t, [name]);
  await settleFixtures(t);
}

async function settle() {
  await drain(t);
  await runJob('fee-configuration-sync');
}

beforeAll(async () => {
  provider = await startSimulator();
  for (const [feeType, variable_rate, transaction_fee_cents, fee_cap_cents] of [
    ['processing_ecomm', 2.9, 30, null],
    ['processing_card_present', 2.6, 10, null],
    ['processing_ach', 0.8, 0, 500],
    ['processing_ach_expedited', 1.5, 0, null],
    ['visa_brand_ecomm', 2.75, 30, null],
    ['platform', 0.5, 0, null],
  ] as const) {
    configs[feeType] = provider.simulator.store.create(ACCOUNT, feeType, {
      variable_rate,
      transaction_fee_cents,
      fee_cap_cents,
      effective_start: START,
    });
  }
  t = await startTestApp({ worker: true, env: provider.env });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('before the first sync', () => {
  it('fee checks that need configurations are counted as unverified, not reported', async () => {
    await deliver(t.app, [payment('py_early', correct('pyfee_early'))]);
    await drain(t);
    await waitFor('the payment to be counted unverified', async () => {
      const status = await request(t.app).get('/api/status').set(auth);
      until(status.body.data.unverified_fee_payments === 1, `${status.body.data.unverified_fee_payments}`);
    });
    const status = await request(t.app).get('/api/status').set(auth);
    expect(status.body.data).toMatchObject({ unverified_fee_payments: 1, last_fee_sync_at: null });
    expect(await openFindings()).toEqual([]);
  });
});

describe('simulator configurations, sync, signed events, findings', () => {
  it('report exactly the discrepancies, and none for correct data', async () => {
    await deliver(t.app, [
      payment('py_ok', correct('pyfee_ok')),
      payment('py_amount', [
        { id: 'pyfee_amount_proc', type: 'processing_fee', amount: 65, source: 'visa_brand_ecomm' },
        { id: 'pyfee_amount_plat', type: 'platform_fee', amount: 6, source: 'platform' },
      ]),
      payment('py_base', [
        { id: 'pyfee_base_proc', type: 'processing_fee', amount: 66, source: 'processing_ecomm' },
        { id: 'pyfee_base_plat', type: 'platform_fee', amount: 6, source: 'platform' },
      ]),
      payment('py_noplat', [
        { id: 'pyfee_noplat_proc', type: 'processing_fee', amount: 64, source: 'visa_brand_ecomm' },
      ]),
      payment('py_total', correct('pyfee_total'), { fee_amount: 71 }),
      payment('py_unknown', [
        { id: 'pyfee_unknown_proc', type: 'processing_fee', amount: 64, source: 'sfc_not_published' },
        { id: 'pyfee_unknown_plat', type: 'platform_fee', amount: 6, source: 'platform' },
      ]),
      payment('py_explicit', [
        { id: 'pyfee_explicit_proc', type: 'processing_fee', amount: 50, source: null },
        { id: 'pyfee_explicit_plat', type: 'platform_fee', amount: 6, source: 'platform' },
      ]),
      payment('py_early_config', correct('pyfee_earlycfg'), {
        created_at: '2026-09-30T23:59:59.999Z',
        updated_at: CREATED,
      }),
    ]);
    await settle();
    expect(await openFindings()).toEqual([
      { code: 'fee_amount_mismatch', subject_id: 'pyfee_amount_proc', expected: 64, actual: 65 },
      {
        code: 'fee_configuration_not_applicable',
        subject_id: 'pyfee_base_proc',
        expected: 'visa_brand_ecomm',
        actual: 'processing_ecomm',
      },
      // Before the visa configuration started, the rules pick the base type.
      {
        code: 'fee_configuration_not_applicable',
        subject_id: 'pyfee_earlycfg_proc',
        expected: 'processing_ecomm',
        actual: 'visa_brand_ecomm',
      },
      {
        code: 'fee_configuration_not_effective',
        subject_id: 'pyfee_earlycfg_plat',
        expected: { effective_start: START, effective_end: null },
        actual: '2026-09-30T23:59:59.999Z',
      },
      {
        code: 'fee_configuration_not_effective',
        subject_id: 'pyfee_earlycfg_proc',
        expected: { effective_start: START, effective_end: null },
        actual: '2026-09-30T23:59:59.999Z',
      },
      {
        code: 'fee_configuration_unknown',
        subject_id: 'pyfee_unknown_proc',
        expected: null,
        actual: 'sfc_not_published',
      },
      { code: 'fee_total_mismatch', subject_id: 'py_total', expected: 71, actual: 70 },
      { code: 'platform_fee_missing', subject_id: 'py_noplat', expected: 6, actual: 0 },
    ]);
    const detail = await request(t.app).get('/api/findings?code=fee_amount_mismatch').set(auth);
    expect(detail.body.data[0]).toMatchObject({
      id: expect.stringMatching(/^fnd_\d+$/),
      severity: 'error',
      status: 'open',
      subject_type: 'payment_fee',
      account_id: ACCOUNT,
      currency: 'usd',
      details: {
        payment_id: 'py_amount',
        payment_amount: 1234,
        configuration: {
          id: configs.visa_brand_ecomm?.id,
          variable_rate: '2.75',
          transaction_fee_cents: 30,
          fee_cap_cents: null,
        },
      },
    });
    const status = await request(t.app).get('/api/status').set(auth);
    expect(status.body.data.unverified_fee_payments).toBe(0);
    expect(status.body.data.overridden_fees).toBe(1);
    expect(status.body.data.last_fee_sync_at).not.toBeNull();
  });

  it('a finding is updated, not duplicated, on every run, and resolves itself once the data agrees', async () => {
    await runJob('fee-configuration-sync');
    const before = await t.pool.query(
      `select count(*)::int as n from findings where subject_id = 'pyfee_amount_proc'`,
    );
    expect(before.rows[0].n).toBe(1);
    await deliver(t.app, [
      payment('py_amount', correct('pyfee_amount'), { updated_at: '2026-11-01T13:00:00.000Z' }),
    ]);
    await settle();
    const rows = await t.pool.query(
      `select status, resolved_at is not null as resolved from findings where subject_id = 'pyfee_amount_proc'`,
    );
    expect(rows.rows).toEqual([{ status: 'resolved', resolved: true }]);
    const resolved = await request(t.app)
      .get('/api/findings?status=resolved&subject_id=pyfee_amount_proc')
      .set(auth);
    expect(resolved.body.data).toHaveLength(1);
  });

  it('GET /api/payments/:id includes the payment’s findings', async () => {
    const response = await request(t.app).get('/api/payments/py_noplat').set(auth);
    expect(response.body.data.findings.map((finding: { code: string }) => finding.code)).toEqual([
      'platform_fee_missing',
    ]);
  });
});

describe('refunds and returned fees', () => {
  it('report returned fees that do not add up, and nothing for a consistent refund', async () => {
    const refund = (id: string, returned: Record<string, unknown>[], updated: string) =>
      JSON.stringify(
        paymentEvent({
          account_id: ACCOUNT,
          event_name: 'payment.refunded',
          data: {
            id,
            payment_id: 'py_ok',
            amount: 600,
            status: 'succeeded',
            returned_fees: returned,
            created_at: updated,
            updated_at: updated,
          },
        }),
      );
    await deliver(t.app, [
      refund(
        're_1',
        [
          {
            id: 'rtfee_1',
            payment_fee_id: 'pyfee_ok_proc',
            type: 'processing_fee',
            returned_amount: 40,
            original_amount: 64,
            remaining_amount: 24,
          },
        ],
        '2026-11-02T10:00:00Z',
      ),
      refund(
        're_2',
        [
          {
            id: 'rtfee_2',
            payment_fee_id: 'pyfee_ok_proc',
            type: 'processing_fee',
            returned_amount: 30,
            original_amount: 60,
            remaining_amount: 0,
          },
        ],
        '2026-11-02T11:00:00Z',
      ),
      refund(
        're_3',
        [
          {
            id: 'rtfee_3',
            payment_fee_id: 'pyfee_not_of_payment',
            type: 'platform_fee',
            returned_amount: 1,
            original_amount: 6,
            remaining_amount: 5,
          },
        ],
        '2026-11-02T12:00:00Z',
      ),
    ]);
    await settle();
    const refundFindings = (await openFindings()).filter((finding) =>
      /^(re_|rtfee_|refund)|py_ok|pyfee_ok/.test(String(finding.subject_id)),
    );
    // The payment snapshot predates the refunds, so its fee remaining amounts are no evidence either way.
    expect(refundFindings).toEqual([
      { code: 'refund_exceeds_payment', subject_id: 'py_ok', expected: 1234, actual: 1800 },
      { code: 'returned_fee_exceeds_remaining', subject_id: 'rtfee_2', expected: 24, actual: 30 },
      { code: 'returned_fee_original_mismatch', subject_id: 'rtfee_2', expected: 64, actual: 60 },
      { code: 'returned_fee_remaining_mismatch', subject_id: 'rtfee_2', expected: -6, actual: 0 },
      {
        code: 'returned_fee_unknown',
        subject_id: 're_3',
        expected: ['pyfee_ok_plat', 'pyfee_ok_proc'],
        actual: ['pyfee_not_of_payment'],
      },
    ]);
  });
});

describe('the fee configuration history', () => {
  it('a changed or vanished configuration is reported as rewritten; an effective_end set once is not', async () => {
    provider.simulator.rewrite(configs.processing_card_present?.id as string, { variable_rate: 2.7 });
    provider.simulator.remove(configs.processing_ach_expedited?.id as string);
    provider.simulator.store.create(ACCOUNT, 'platform', {
      variable_rate: 0.5,
      effective_end: '2099-01-01T00:00:00Z',
    });
    await runJob('fee-configuration-sync');
    const history = (await openFindings()).filter(
      (finding) =>
        String(finding.code).startsWith('fee_configuration_history') ||
        String(finding.code).startsWith('base_fee'),
    );
    const pairs = (list: unknown[][]) => list.map((pair) => pair.join(' ')).sort();
    expect(pairs(history.map((finding) => [finding.code, finding.subject_id]))).toEqual(
      pairs([
        ['base_fee_configuration_missing', `${ACCOUNT}:processing_ach_expedited`],
        ['fee_configuration_history_rewritten', configs.processing_ach_expedited?.id],
        ['fee_configuration_history_rewritten', configs.processing_card_present?.id],
      ]),
    );
    const stored = await t.pool.query(
      `select effective_end is not null as ended from fee_configurations where id = $1`,
      [configs.platform?.id],
    );
    expect(stored.rows[0].ended).toBe(true);
  });

  it('a gap or overlap between consecutive configurations breaks the chain', async () => {
    const overlap = provider.simulator.store.create(ACCOUNT, 'processing_ach', {
      variable_rate: 0.9,
      effective_start: '2026-10-15T00:00:00Z',
    });
    provider.simulator.rewrite(configs.processing_ach?.id as string, {
      effective_end: '2026-10-20T00:00:00.000Z',
    });
    await runJob('fee-configuration-sync');
    const broken = (await openFindings()).filter(
      (finding) => finding.code === 'fee_configuration_chain_broken',
    );
    expect(broken).toEqual([
      {
        code: 'fee_configuration_chain_broken',
        subject_id: `${ACCOUNT}:processing_ach`,
        expected: 'consecutive configurations meet exactly',
        actual: ['overlap'],
      },
    ]);
    expect(overlap.effective_start).toBe('2026-10-15T00:00:00.000Z');
  });
});
