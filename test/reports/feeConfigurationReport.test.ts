import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { StillWaiting, waitFor } from '../helpers/waitFor.ts';

const ACCOUNT = 'acc_report';
const auth = { Authorization: `Bearer ${API_TOKEN}` };
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;

const priced = (id: string, amount: number, brand: string, fee: number, config: SimulatedConfiguration) =>
  JSON.stringify(
    paymentEvent({
      account_id: ACCOUNT,
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: ACCOUNT,
        amount,
        currency: 'usd',
        status: 'succeeded',
        payment_method: { card: { brand } },
        fee_amount: fee,
        fees: [
          {
            id: `pyfee_${id}`,
            type: 'processing_fee',
            amount: fee,
            source_configuration_id: config.id,
            source_fee_type: config.fee_type,
          },
        ],
        created_at: new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString(),
      },
    }),
  );

// Syncs every account, which ends by queueing the comparison report; resolves with that report.
async function syncAndReport(previousCount: number) {
  expect((await request(t.app).post('/api/jobs/fee-configuration-sync').set(auth).send({})).status).toBe(202);
  const id = await waitFor('the fee configuration report', async () => {
    const list = await request(t.app).get('/api/reports?kind=fee-configurations').set(auth);
    if (list.body.data.length > previousCount) return list.body.data[0].id as string;
    const jobs = await Promise.all(
      ['fee-configuration-sync', 'fee-configuration-report'].map((name) => t.boss.findJobs(name)),
    );
    const detail = jobs.flat().map((job) => ({ name: job.name, state: job.state, output: job.output }));
    throw new StillWaiting(`jobs: ${JSON.stringify(detail)}`);
  });
  return (await request(t.app).get(`/api/reports/${id}.json`).set(auth)).body;
}

beforeAll(async () => {
  provider = await startSimulator();
  t = await startTestApp({ worker: true, env: provider.env });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

it('lists new, retired and scheduled configurations since the previous run, and the re-priced impact in exact cents', async () => {
  const start = new Date(Date.now() - 60 * 24 * 3600 * 1000).toISOString();
  const store = provider.simulator.store;
  const base = store.create(ACCOUNT, 'processing_ecomm', {
    variable_rate: 2.9,
    transaction_fee_cents: 30,
    effective_start: start,
  });
  const visa = store.create(ACCOUNT, 'visa_brand_ecomm', {
    variable_rate: 2.75,
    transaction_fee_cents: 30,
    effective_start: start,
  });
  await deliver(t.app, [
    priced('py_r1', 1234, 'visa', 64, visa), // 33.935 + 30 → 64
    priced('py_r2', 5000, 'visa', 168, visa), // 137.5 + 30 → 168
    priced('py_r3', 2000, 'mastercard', 88, base), // 58 + 30
  ]);
  await settle(t);
  const first = await syncAndReport(0);
  expect(first.previous_report_id).toBeNull();

  const replacement = store.create(ACCOUNT, 'visa_brand_ecomm', {
    variable_rate: 3,
    transaction_fee_cents: 30,
  });
  const takesEffect = new Date(Date.now() + 10 * 24 * 3600 * 1000).toISOString();
  const scheduled = store.create(ACCOUNT, 'processing_ecomm', {
    variable_rate: 3.1,
    transaction_fee_cents: 30,
    effective_start: takesEffect,
  });
  const second = await syncAndReport(1);
  expect(second.previous_report_id).toMatch(/^rpt_\d+$/);

  const types = second.accounts.find(
    (account: { account_id: string }) => account.account_id === ACCOUNT,
  ).fee_types;
  const visaType = types.find((type: { fee_type: string }) => type.fee_type === 'visa_brand_ecomm');
  expect(visaType.new.map((item: { id: string }) => item.id)).toEqual([replacement.id]);
  expect(visaType.retired.map((item: { id: string }) => item.id)).toEqual([visa.id]);
  expect(visaType.effective).toMatchObject({
    id: replacement.id,
    variable_rate: '3',
    transaction_fee_cents: 30,
    fee_cap_cents: null,
  });
  // 1,234 ¢ → 37.02 + 30 → 67; 5,000 ¢ → 150 + 30 → 180.
  expect(visaType.impact).toEqual([
    {
      configuration_id: replacement.id,
      currency: 'usd',
      payments: 2,
      charged: 232,
      repriced: 247,
      difference: 15,
    },
  ]);

  const baseType = types.find((type: { fee_type: string }) => type.fee_type === 'processing_ecomm');
  expect(baseType.scheduled).toEqual([
    expect.objectContaining({ id: scheduled.id, takes_effect: takesEffect }),
  ]);
  expect(baseType.effective.id).toBe(base.id);
  expect(baseType.impact).toEqual([
    {
      configuration_id: scheduled.id,
      currency: 'usd',
      payments: 1,
      charged: 88,
      repriced: 92,
      difference: 4,
    },
  ]);
  expect(baseType.chain_broken).toBe(false);

  const csv = await request(t.app)
    .get(
      `/api/reports/${(await request(t.app).get('/api/reports?kind=fee-configurations').set(auth)).body.data[0].id}.csv`,
    )
    .set(auth);
  expect(csv.text).toContain(`${ACCOUNT},visa_brand_ecomm,${replacement.id},usd,2,232,2.32,247,2.47,15,0.15`);
});
