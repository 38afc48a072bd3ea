import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { drain, settle, waitForJobs } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';

// The payout sync end to end: the provider simulator pays out payments Tally knows, in each sign convention
// and fee layout, the `payout-sync` job (started through the API, run by the real worker) stores every payout
// and line as `api` snapshots, and the worker projects them into one normalized form.

const ACCOUNT = 'acc_payout_sync';
const auth = { Authorization: `Bearer ${API_TOKEN}` };
const DAY = 24 * 3600_000;
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
let webhookUrl: string;
let closeReceiver: () => Promise<void>;

async function runJob(payload: object) {
  const response = await request(t.app).post('/api/jobs/payout-sync').set(auth).send(payload);
  expect(response.status).toBe(202);
  await waitForJobs(t, ['payout-sync']);
  await settle(t);
}

/** A card payment delivered to Tally by webhook; with a refund of 1,000 ¢ returning 29 ¢ of processing fee. */
async function sendPayment(amount: number, refunded = false) {
  const sent = (await provider.simulator.sendPayment({
    account_id: ACCOUNT,
    amount,
    webhook_url: webhookUrl,
    secret: SECRETS[0],
  })) as { payment: Record<string, unknown> & { id: string } };
  if (refunded)
    provider.simulator.putPayment({
      ...sent.payment,
      status: 'partially_refunded',
      refunds: [
        {
          id: `re_${sent.payment.id.slice(3)}`,
          amount: 1000,
          status: 'succeeded',
          returned_fees: [{ type: 'processing_fee', returned_amount: 29 }],
        },
      ],
    });
  return sent.payment.id;
}

async function payOut(options: Record<string, unknown>) {
  const response = await request(provider.simulator.app)
    .post('/dev/payouts')
    .send({ account_id: ACCOUNT, ...options });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.payout.id as string;
}

const linesOf = async (payoutId: string) =>
  (
    await t.pool.query(
      `select txn_type, kind, amount::int, fee::int, net::int, currency
         from payout_lines where payout_id = $1 order by source_payment_id is null, created_at, id`,
      [payoutId],
    )
  ).rows;

const payoutOf = async (payoutId: string) =>
  (
    await t.pool.query(
      `select status, amount::int, currency, payout_type, payments_count, payments_total::int, refunds_count,
              refunds_total::int, fees_total::int, other_total::int, line_count, lines_complete
         from payouts where id = $1`,
      [payoutId],
    )
  ).rows[0];

const sortedLines = (lines: Record<string, unknown>[]) => lines.map((line) => JSON.stringify(line)).sort();

beforeAll(async () => {
  provider = await startSimulator();
  const start = new Date(Date.now() - 30 * DAY).toISOString();
  for (const [feeType, rate, flat] of [
    ['processing_ecomm', 2.9, 30],
    ['visa_brand_ecomm', 2.75, 30],
    ['platform', 0.5, 0],
    ['processing_card_present', 1, 0],
    ['processing_ach', 1, 0],
    ['processing_ach_expedited', 1, 0],
  ] as const)
    provider.simulator.store.create(ACCOUNT, feeType, {
      variable_rate: rate,
      transaction_fee_cents: flat,
      fee_cap_cents: null,
      effective_start: start,
    });
  t = await startTestApp({ worker: true, env: { ...provider.env, PROVIDER_SUB_ACCOUNTS: ACCOUNT } });
  const server = await serve(t.app, 0);
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  closeReceiver = () => closeServer(server);
});
afterAll(async () => {
  await closeReceiver();
  await t.close();
  await provider.close();
});

describe('POST /api/jobs/payout-sync', () => {
  it('refuses a payout_id without its account_id, naming the parameter', async () => {
    const response = await request(t.app).post('/api/jobs/payout-sync').set(auth).send({ payout_id: 'po_1' });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain('account_id');
  });
});

describe('sign conventions and fee layouts', () => {
  const payouts: Record<string, string> = {};

  beforeAll(async () => {
    for (const sign_convention of ['negative', 'positive'])
      for (const fee_layout of ['lines', 'inline']) {
        await sendPayment(10_000, true);
        await sendPayment(2_500);
        payouts[`${sign_convention}/${fee_layout}`] = await payOut({
          sign_convention,
          fee_layout,
          status: 'paid',
        });
      }
    await settle(t);
    await runJob({ account_id: ACCOUNT });
  });

  it('projects fee lines the same whichever sign convention, credit positive and debit negative, in exact cents', async () => {
    const expected = [
      { txn_type: 'seller_payment', kind: 'payment', amount: 10_000, fee: 0, net: 10_000, currency: 'usd' },
      { txn_type: 'processing_fee', kind: 'fee', amount: -305, fee: 0, net: -305, currency: 'usd' },
      { txn_type: 'platform_fee', kind: 'fee', amount: -50, fee: 0, net: -50, currency: 'usd' },
      {
        txn_type: 'seller_payment_refund',
        kind: 'refund',
        amount: -1000,
        fee: 0,
        net: -1000,
        currency: 'usd',
      },
      { txn_type: 'processing_fee_return', kind: 'fee_return', amount: 29, fee: 0, net: 29, currency: 'usd' },
      { txn_type: 'seller_payment', kind: 'payment', amount: 2500, fee: 0, net: 2500, currency: 'usd' },
      { txn_type: 'processing_fee', kind: 'fee', amount: -99, fee: 0, net: -99, currency: 'usd' },
      { txn_type: 'platform_fee', kind: 'fee', amount: -13, fee: 0, net: -13, currency: 'usd' },
      { txn_type: 'payout', kind: 'payout', amount: -11_062, fee: 0, net: -11_062, currency: 'usd' },
    ];
    for (const convention of ['negative', 'positive'])
      expect(sortedLines(await linesOf(payouts[`${convention}/lines`] as string))).toEqual(
        sortedLines(expected),
      );
  });

  it('projects inline fees as the fee of the payment line, net = amount - fee, whichever sign convention', async () => {
    const expected = [
      { txn_type: 'seller_payment', kind: 'payment', amount: 10_000, fee: 355, net: 9645, currency: 'usd' },
      {
        txn_type: 'seller_payment_refund',
        kind: 'refund',
        amount: -1000,
        fee: 0,
        net: -1000,
        currency: 'usd',
      },
      { txn_type: 'processing_fee_return', kind: 'fee_return', amount: 29, fee: 0, net: 29, currency: 'usd' },
      { txn_type: 'seller_payment', kind: 'payment', amount: 2500, fee: 112, net: 2388, currency: 'usd' },
      { txn_type: 'payout', kind: 'payout', amount: -11_062, fee: 0, net: -11_062, currency: 'usd' },
    ];
    for (const convention of ['negative', 'positive'])
      expect(sortedLines(await linesOf(payouts[`${convention}/inline`] as string))).toEqual(
        sortedLines(expected),
      );
  });

  it('projects each payout with its totals, its line count and lines_complete', async () => {
    for (const [key, id] of Object.entries(payouts))
      expect(await payoutOf(id), key).toEqual({
        status: 'paid',
        amount: 11_062,
        currency: 'usd',
        payout_type: 'cc',
        payments_count: 2,
        payments_total: 12_500,
        refunds_count: 1,
        refunds_total: 1000,
        fees_total: 438,
        other_total: 0,
        line_count: key.endsWith('/lines') ? 9 : 5,
        lines_complete: true,
      });
  });

  it('records the account as synced with its newest payout, and a second run stores nothing new', async () => {
    const { rows } = await t.pool.query(
      `select account_id, synced_at is not null as synced, newest_payout_created_at is not null as newest
         from payout_sync_accounts`,
    );
    expect(rows).toEqual([{ account_id: ACCOUNT, synced: true, newest: true }]);
    const count = async () =>
      (await t.pool.query(`select count(*)::int as n from events where source = 'api'`)).rows[0].n;
    const before = await count();
    const listed = provider.simulator.requests.length;
    await runJob({ account_id: ACCOUNT });
    expect(await count()).toBe(before);
    // One listing of payouts and no payout's lines (every payout is known whole in its state), then the one page
    // of the account's ledger.
    expect(provider.simulator.requests.slice(listed)).toEqual([
      'GET /v1/payouts',
      'GET /v1/balance_transactions',
    ]);
  });
});

describe('a payout delivered by webhook', () => {
  it('is projected, has its lines fetched by a payout-sync job of its own, and stays paid', async () => {
    await sendPayment(4000);
    await settle(t);
    const id = await payOut({ status: 'paid', webhook_url: webhookUrl, secret: SECRETS[0] });
    await drain(t);
    await waitForJobs(t, ['payout-sync']);
    await settle(t);
    const jobs = await t.boss.findJobs('payout-sync', { data: { account_id: ACCOUNT, payout_id: id } });
    expect(jobs.map((job) => job.state)).toContain('completed');
    expect(await payoutOf(id)).toMatchObject({
      status: 'paid',
      amount: 3840,
      line_count: 4,
      lines_complete: true,
    });
    const { rows } = await t.pool.query(
      `select event_name, source from events where body_sha256 is not null and convert_from(raw_body, 'utf8') like $1
        order by id`,
      [`%"id":"${id}"%`],
    );
    expect(rows).toEqual([
      { event_name: 'payout.created', source: 'webhook' },
      { event_name: 'payout.paid', source: 'webhook' },
      { event_name: 'payout.api_snapshot', source: 'api' },
    ]);
  });
});
