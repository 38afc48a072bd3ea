import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';
import { signIn } from '../console/signIn.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain, settle, waitForJobs } from '../helpers/fixtures.ts';
import { type Fee, pricedPaymentBody } from '../helpers/pricedPayments.ts';
import { startSimulator } from '../helpers/simulator.ts';

// Through HTTP and the worker: deliveries are projected and reconciled against synced fee configurations,
// and every reader shows the at_stake the rules measured. Visa payments of 10,000 ¢ created 2026-11-01: the
// base configuration gives 300 ¢ (3 %), the visa one 270 ¢ (2.7 %, replacing a 3 % one that ended 2026-10-01).

const ACCOUNT = 'acc_stake';
const DAY = '2026-11-01';
const CREATED = `${DAY}T12:00:00.000Z`;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
const configs: Record<string, SimulatedConfiguration> = {};

function payment(id: string, fees: Fee[], fields: Record<string, unknown> = {}) {
  return pricedPaymentBody(
    configs,
    { accountId: ACCOUNT, id, amount: 10_000, createdAt: CREATED, fees },
    fields,
  );
}

const processing = (id: string, amount: number, source: string): Fee => ({
  id,
  type: 'processing_fee',
  amount,
  source,
});

const checkout = JSON.stringify(
  paymentEvent({
    account_id: ACCOUNT,
    event_name: 'checkout.completed',
    data: {
      id: 'cho_stake',
      account_id: ACCOUNT,
      amount: 10_000,
      payment_amount: 10_000,
      status: 'completed',
      payment: { fees: [{ type: 'platform_fee', amount: 200 }] },
      payment_id: 'py_checkout',
    },
  }),
);

const forwarded = (eventName: string, fields: Record<string, unknown>) =>
  JSON.stringify(
    paymentEvent({
      account_id: ACCOUNT,
      event_name: eventName,
      data: {
        id: 'fwd_stake',
        payment_method_id: 'pm_fwd',
        url: 'https://dest.example.com/pay',
        updated_at: '2026-11-01T10:00:00Z',
        ...fields,
      },
    }),
  );

async function runJob(name: string, body: object = {}) {
  const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send(body);
  expect(response.status).toBe(202);
  await waitForJobs(t, [name]);
  await settle(t);
}

async function openFindings(query = '') {
  const response = await request(t.app).get(`/api/findings?status=open&limit=100${query}`).set(auth);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, unknown>[];
}

const stakeOf = async (code: string) =>
  (await openFindings(`&code=${code}`)).map((finding) => [finding.subject_id, finding.at_stake]);

beforeAll(async () => {
  provider = await startSimulator();
  const create = (feeType: string, rate: number, start: string) =>
    provider.simulator.store.create(ACCOUNT, feeType, {
      variable_rate: rate,
      transaction_fee_cents: 0,
      fee_cap_cents: null,
      effective_start: start,
    });
  for (const base of ['processing_card_present', 'processing_ach', 'processing_ach_expedited'])
    create(base, 1, '2026-09-01T00:00:00Z');
  configs.processing_ecomm = create('processing_ecomm', 3, '2026-09-01T00:00:00Z');
  configs.visa_old = create('visa_brand_ecomm', 3, '2026-09-01T00:00:00Z');
  configs.visa = create('visa_brand_ecomm', 2.7, '2026-10-01T00:00:00Z');
  t = await startTestApp({ worker: true, env: provider.env });
  await deliver(t.app, [
    payment('py_base', [processing('pyfee_base', 300, 'processing_ecomm')]),
    payment('py_lapsed', [processing('pyfee_lapsed', 300, 'visa_old')]),
    payment('py_unknown', [processing('pyfee_unknown', 300, 'sfc_nowhere')]),
    checkout,
    payment(
      'py_checkout',
      [
        processing('pyfee_checkout', 270, 'visa'),
        { id: 'pyfee_set', type: 'platform_fee', amount: 150, source: null },
      ],
      { checkout_id: 'cho_stake' },
    ),
    forwarded('forwarding_request.completed', { status: 'completed', response: { status_code: 200 } }),
    forwarded('forwarding_request.failed', {
      status: 'failed',
      failure_reason: 'connection_error',
      updated_at: '2026-11-01T10:01:00Z',
    }),
  ]);
  await drain(t);
  // The sync learns the account from its payments, then has them reconciled against its configurations.
  await runJob('fee-configuration-sync');
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('GET /api/findings', () => {
  it('carries the at_stake each rule measured: 50, 30, 30 and the whole fee; null where no money is measured', async () => {
    expect(await stakeOf('checkout_fee_mismatch')).toEqual([['cho_stake', 50]]);
    expect(await stakeOf('fee_configuration_not_applicable')).toEqual([['pyfee_base', 30]]);
    expect(await stakeOf('fee_configuration_not_effective')).toEqual([['pyfee_lapsed', 30]]);
    expect(await stakeOf('fee_configuration_unknown')).toEqual([['pyfee_unknown', 300]]);
    expect(await stakeOf('forwarding_outcome_conflict')).toEqual([['fwd_stake', null]]);
    // Nothing else is wrong with these payments.
    expect((await openFindings()).map((finding) => finding.code).sort()).toEqual([
      'checkout_fee_mismatch',
      'fee_configuration_not_applicable',
      'fee_configuration_not_effective',
      'fee_configuration_unknown',
      'forwarding_outcome_conflict',
    ]);
  });

  it('sorts by at_stake, most first and those measuring none last, page by page', async () => {
    const first = await request(t.app).get('/api/findings?status=open&sort=at_stake&limit=2').set(auth);
    expect(first.body.data.map((finding: { at_stake: unknown }) => finding.at_stake)).toEqual([300, 50]);
    const next = await request(t.app)
      .get(`/api/findings?status=open&sort=at_stake&limit=2&after_cursor=${first.body.page_info.end_cursor}`)
      .set(auth);
    expect(next.body.data.map((finding: { at_stake: unknown }) => finding.at_stake)).toEqual([30, 30]);
    const last = await request(t.app)
      .get(`/api/findings?status=open&sort=at_stake&limit=2&after_cursor=${next.body.page_info.end_cursor}`)
      .set(auth);
    expect(last.body.data.map((finding: { code: unknown }) => finding.code)).toEqual([
      'forwarding_outcome_conflict',
    ]);
    expect((await request(t.app).get('/api/findings?sort=money').set(auth)).status).toBe(400);
  });

  it('GET /api/findings/:id carries it too', async () => {
    const [finding] = await openFindings('&code=checkout_fee_mismatch');
    const response = await request(t.app).get(`/api/findings/${finding?.id}`).set(auth);
    expect(response.body.data).toMatchObject({
      code: 'checkout_fee_mismatch',
      severity: 'error',
      currency: 'usd',
      expected: { platform_fee: 200 },
      actual: { platform_fee: 150 },
      at_stake: 50,
    });
  });
});

describe('the console', () => {
  it('lists findings with their money at stake, sortable by it; a finding that measures none shows —', async () => {
    const agent = await signIn(t, API_TOKEN);
    const response = await agent.get('/console/findings?status=open&sort=at_stake');
    expect(response.status).toBe(200);
    const rows = parse(response.text)
      .querySelectorAll('tbody tr')
      .map((row) => {
        const cells = row.querySelectorAll('td').map((cell) => cell.textContent.trim());
        return [cells[2], cells[1]];
      });
    expect(rows.map(([, stake]) => stake)).toEqual(['$3.00', '$0.50', '$0.30', '$0.30', '—']);
    expect(rows.map(([code]) => code)).toEqual([
      'fee_configuration_unknown',
      'checkout_fee_mismatch',
      // Equal amounts: newest first.
      ...(await openFindings('&sort=at_stake'))
        .filter((finding) => finding.at_stake === 30)
        .map((finding) => finding.code),
      'forwarding_outcome_conflict',
    ]);
    const [finding] = await openFindings('&code=checkout_fee_mismatch');
    const detail = await agent.get(`/console/findings/${finding?.id}`);
    expect(detail.text).toMatch(/<dt>At stake<\/dt><dd>\$0\.50<\/dd>/);
  });
});

describe('the daily report', () => {
  it('sums at_stake per code and currency, and shows — (null in JSON) for codes that measure no money', async () => {
    await runJob('daily-report', { date: DAY });
    const list = await request(t.app).get('/api/reports?kind=daily').set(auth);
    const id = list.body.data[0].id as string;
    const report = (await request(t.app).get(`/api/reports/${id}.json`).set(auth)).body;
    expect(
      report.findings.map((row: Record<string, unknown>) => [
        row.code,
        row.currency,
        row.findings,
        row.at_stake,
      ]),
    ).toEqual([
      ['checkout_fee_mismatch', 'usd', 1, 50],
      ['fee_configuration_not_applicable', 'usd', 1, 30],
      ['fee_configuration_not_effective', 'usd', 1, 30],
      ['fee_configuration_unknown', 'usd', 1, 300],
      ['forwarding_outcome_conflict', null, 1, null],
    ]);
    expect(report.top_findings.map((row: Record<string, unknown>) => row.at_stake)).toEqual([
      300, 50, 30, 30,
    ]);

    const html = (await request(t.app).get(`/api/reports/${id}.html`).set(auth)).text;
    const table = parse(html)
      .querySelectorAll('h2')
      .find((heading) => heading.textContent === 'Open findings')?.nextElementSibling;
    const cells = table
      ?.querySelectorAll('tbody tr')
      .map((row) => row.querySelectorAll('td').map((cell) => cell.textContent));
    expect(cells?.map((row) => [row[2], row[4]])).toEqual([
      ['checkout_fee_mismatch', '$0.50'],
      ['fee_configuration_not_applicable', '$0.30'],
      ['fee_configuration_not_effective', '$0.30'],
      ['fee_configuration_unknown', '$3.00'],
      ['forwarding_outcome_conflict', '—'],
    ]);
  });
});

describe('migration 0014', () => {
  it('an open finding without at_stake gets it from its payment reconciled again by reconcile-stale', async () => {
    await t.pool.query(`update findings set at_stake = null where code = 'checkout_fee_mismatch'`);
    const migration = await readFile(
      path.join(import.meta.dirname, '../../migrations/0014_finding_at_stake.sql'),
      'utf8',
    );
    await t.pool.query(migration);
    const { rows } = await t.pool.query(
      `select payment_id from payment_reconciliation_states
        where unreconciled_since <= now() - interval '1 minute' order by payment_id`,
    );
    expect(rows).toEqual([{ payment_id: 'py_checkout' }]);
    await runJob('reconcile-stale');
    await waitForJobs(t, ['reconcile-payments']);
    expect(await stakeOf('checkout_fee_mismatch')).toEqual([['cho_stake', 50]]);
  });
});
