import type { AddressInfo } from 'node:net';
import { parse as parseHtml } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';

// The month-end tie-out against the provider's own ledger, in New York, through the API with the simulator as
// the provider: payments it delivers by webhook and pays out are on both sides; one payment only the provider's
// ledger lists (its webhooks lost, older than the sweep's window) and one only Tally knows make the difference.
const admin = { Authorization: `Bearer ${API_TOKEN}` };
const ACCOUNT = 'acc_tieout';
let clock = new Date('2026-10-12T15:00:00Z');
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;
let webhookUrl: string;
let closeReceiver: () => Promise<void>;

const get = (path: string) => request(t.app).get(path).set(admin);
const ledgerLines = async () =>
  (
    await t.pool.query(
      `select id, payout_id, txn_type, net::int, created_at from provider_ledger_lines where account_id = $1 order by id`,
      [ACCOUNT],
    )
  ).rows;

async function sendPayment(id: string, amount: number) {
  const sent = (await provider.simulator.sendPayment({
    id,
    account_id: ACCOUNT,
    amount,
    webhook_url: webhookUrl,
    secret: SECRETS[0],
  })) as { webhook_statuses: number[] };
  expect(sent.webhook_statuses).toEqual([200, 200]);
}

async function syncAccount() {
  await runJobThroughApi(t, admin, 'missed-event-sweep');
  await runJobThroughApi(t, admin, 'payout-sync');
  await settle(t);
}

beforeAll(async () => {
  provider = await startSimulator(() => clock);
  t = await startTestApp({
    worker: true,
    now: () => clock,
    env: {
      ...provider.env,
      PROVIDER_SUB_ACCOUNTS: ACCOUNT,
      BUSINESS_TIME_ZONE: 'America/New_York',
      // The simulator signs its webhooks at the real time, Tally checks them at the test's clock.
      WEBHOOK_TOLERANCE_SECONDS: String(10 * 365 * 24 * 3600),
    },
  });
  const server = await serve(t.app, 0);
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  closeReceiver = () => closeServer(server);

  await sendPayment('py_paid_out', 10_000);
  clock = new Date('2026-10-14T15:00:00Z');
  const payout = await request(provider.simulator.app)
    .post('/dev/payouts')
    .send({ id: 'po_oct', account_id: ACCOUNT, status: 'paid' });
  expect(payout.status, JSON.stringify(payout.body)).toBe(200);
  clock = new Date('2026-10-16T15:00:00Z');
  await sendPayment('py_waiting', 2_500);
  // The provider's alone: stored by the API, never delivered, and older than the sweep's window at the close.
  provider.simulator.putPayment({
    id: 'py_provider_only',
    account_id: ACCOUNT,
    amount: 777,
    currency: 'usd',
    status: 'succeeded',
    fees: [],
    created_at: '2026-10-20T15:00:00Z',
    updated_at: '2026-10-20T15:00:00Z',
  });
  // Tally's alone: a delivery the provider's ledger has no line for.
  const tallyOnly = paymentEvent({
    account_id: ACCOUNT,
    // The simulator's account is a test one; the tie-out is the same for live money.
    account_type: 'test',
    event_name: 'payment.succeeded',
    data: {
      id: 'py_tally_only',
      account_id: ACCOUNT,
      amount: 5_000,
      currency: 'usd',
      status: 'succeeded',
      capture_strategy: 'automatic',
      fee_amount: 0,
      fees: [],
      created_at: '2026-10-22T15:00:00Z',
      updated_at: '2026-10-22T15:00:00Z',
    },
  });
  clock = new Date('2026-11-03T12:00:00Z');
  const sent = await postSigned(t.app, JSON.stringify(tallyOnly), {
    timestamp: String(Math.floor(clock.getTime() / 1000)),
  });
  expect(sent.status).toBe(200);
  await settle(t);
  await syncAccount();
}, 120_000);
afterAll(async () => {
  await closeReceiver();
  await t.close();
  await provider.close();
});

const PROVIDER_LINE = {
  id: 'bt_py_provider_only_seller_payment',
  txn_type: 'seller_payment',
  net: 777,
  created_at: '2026-10-20T15:00:00.000Z',
  source_id: 'py_provider_only',
  source_payment_id: 'py_provider_only',
};
const TALLY_ITEM = { type: 'payment', id: 'py_tally_only', amount: 5_000, at: '2026-10-22T15:00:00.000Z' };

describe('the tie-out of a month', () => {
  it('gives the exact difference between held_end and the provider’s ledger, and the items on each side', async () => {
    const [account] = (await get('/api/periods/2026-10')).body.data.accounts;
    // Held by Tally: py_waiting and py_tally_only (py_paid_out is in po_oct); by the provider: py_waiting and
    // py_provider_only.
    expect(account.walk.held_end).toBe(7_500);
    expect(account.provider_held_end).toBe(3_277);
    expect(account.held_difference).toBe(4_223);
    expect(account.tie_out).toEqual({
      ledger: 'listed',
      note: null,
      listed_at: '2026-11-03T12:00:00.000Z',
      failed_at: null,
      provider_lines_without_item: [PROVIDER_LINE],
      items_without_provider_line: [TALLY_ITEM],
    });
  });

  it('reads beside the walk on the HTML report: the provider holds, the difference and the items on each side', async () => {
    const html = parseHtml((await get('/api/periods/2026-10.html')).text);
    const [walk, items] = html
      .querySelectorAll('table')
      .map((table) =>
        table
          .querySelectorAll('tbody tr')
          .map((row) => row.querySelectorAll('td').map((td) => td.textContent)),
      );
    expect(walk?.[0]?.slice(-3)).toEqual(['$75.00', '$32.77', '$42.23']);
    expect(items).toEqual([
      ['provider line Tally has no item for', PROVIDER_LINE.id, 'seller_payment', '20 Oct 2026', '$7.77'],
      ['Tally item the provider lists no line for', TALLY_ITEM.id, 'payment', '22 Oct 2026', '$50.00'],
    ]);
    expect(html.querySelector('p.tie-out')?.textContent).toBe(
      `test ${ACCOUNT} USD: Tally holds $42.23 more than the provider's ledger shows.`,
    );
  });

  it('a close opens period_held_mismatch, every field as stated, and is refused naming it', async () => {
    const refused = await request(t.app)
      .post('/api/periods/2026-10/close')
      .set(admin)
      .send({ note: 'October' });
    expect(refused.status).toBe(409);
    const { rows } = await t.pool.query(
      `select 'fnd_' || id as id, code, severity, status, subject_type, subject_id, account_id, currency, expected,
              actual, at_stake, details
         from findings where code = 'period_held_mismatch'`,
    );
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^fnd_\d+$/),
        code: 'period_held_mismatch',
        severity: 'error',
        status: 'open',
        subject_type: 'period',
        subject_id: `2026-10:${ACCOUNT}:usd`,
        account_id: ACCOUNT,
        currency: 'usd',
        expected: 3_277,
        actual: 7_500,
        at_stake: 4_223,
        details: {
          period: '2026-10',
          account_type: 'test',
          held_end: 7_500,
          provider_held_end: 3_277,
          held_difference: 4_223,
          provider_lines_without_item: [PROVIDER_LINE],
          items_without_provider_line: [TALLY_ITEM],
        },
      },
    ]);
    expect(refused.body.error.message).toBe(
      `2026-10 cannot be closed: findings of severity error or worse are open or acknowledged (accept each with a note to close): ${rows[0].id} period_held_mismatch (error, 2026-10:${ACCOUNT}:usd)`,
    );
    const finding = (await get(`/api/findings/${rows[0].id}`)).body.data;
    expect(finding).toMatchObject({ code: 'period_held_mismatch', severity: 'error', at_stake: 4_223 });
  });

  it('accepting it with a note lets the close proceed, and the stored report keeps the tie-out', async () => {
    const { rows } = await t.pool.query(
      `select 'fnd_' || id as id from findings where code = 'period_held_mismatch'`,
    );
    const accepted = await request(t.app)
      .post(`/api/findings/${rows[0].id}/accept`)
      .set(admin)
      .send({ note: 'py_tally_only and py_provider_only raised with the provider' });
    expect(accepted.status).toBe(200);
    const closed = await request(t.app)
      .post('/api/periods/2026-10/close')
      .set(admin)
      .send({ note: 'October' });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const [account] = (await get('/api/periods/2026-10')).body.data.accounts;
    expect(account).toMatchObject({ provider_held_end: 3_277, held_difference: 4_223 });
    const status = await t.pool.query(`select status from findings where code = 'period_held_mismatch'`);
    expect(status.rows).toEqual([{ status: 'accepted' }]);
  });
});

describe('a ledger page that is malformed', () => {
  it('leaves the previous listing in place, says so in /api/status, and the tie-out reports it stale', async () => {
    const before = await ledgerLines();
    expect(before.map((line) => line.id)).toContain(PROVIDER_LINE.id);
    clock = new Date('2026-11-03T13:00:00Z');
    await sendPayment('py_november', 1_200);
    await request(provider.simulator.app)
      .post('/dev/ledger-faults')
      .send({ account_id: ACCOUNT, malformed: true });
    await runJobThroughApi(t, admin, 'payout-sync');
    expect(await ledgerLines()).toEqual(before);
    const status = (await get('/api/status')).body.data;
    expect(status.provider_ledger_failures).toEqual([
      {
        account_id: ACCOUNT,
        failed_at: '2026-11-03T13:00:00.000Z',
        error: expect.stringMatching(/^line \d+ of the page is malformed: /),
        listed_at: '2026-11-03T12:00:00.000Z',
      },
    ]);
    const [account] = (await get('/api/periods/2026-11')).body.data.accounts;
    expect(account).toMatchObject({ provider_held_end: null, held_difference: null });
    expect(account.tie_out).toMatchObject({
      ledger: 'stale',
      failed_at: '2026-11-03T13:00:00.000Z',
      provider_lines_without_item: [],
      items_without_provider_line: [],
    });
    expect(account.tie_out.note).toMatch(/^the latest ledger listing failed at 2026-11-03T13:00:00.000Z/);
  });

  it('is listed again by the next payout sync, which then sees what the provider added', async () => {
    clock = new Date('2026-11-03T14:00:00Z');
    await request(provider.simulator.app)
      .post('/dev/ledger-faults')
      .send({ account_id: ACCOUNT, malformed: false });
    await runJobThroughApi(t, admin, 'payout-sync');
    expect((await get('/api/status')).body.data.provider_ledger_failures).toEqual([]);
    expect((await ledgerLines()).map((line) => line.id)).toContain('bt_py_november_seller_payment');
    const [account] = (await get('/api/periods/2026-11')).body.data.accounts;
    expect(account.tie_out.ledger).toBe('listed');
    expect(account.provider_held_end).toBe(3_277 + 1_200);
  });
});
