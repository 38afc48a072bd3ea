import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCloseRefusals } from '../../src/close/closeRules.ts';
import { recordFindings } from '../../src/findings/recordFindings.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';
import { insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

// The stricter close rules in New York, through the API with the sweep and payout sync run against the simulator:
// activity of every kind orders the closes, each synced account must have synced since the period ended, and a
// finding of CLOSE_BLOCKING_SEVERITY or worse stops the close until it is accepted. Open items are as at the end.
const admin = { Authorization: `Bearer ${API_TOKEN}` };
const ACCOUNT = 'acc_rules';
const IDLE_ACCOUNT = 'acc_rules_idle';
const clock = new Date('2026-11-03T12:00:00Z');
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;

const fee = (id: string, amount: number) => ({
  id,
  type: 'processing_fee',
  amount,
  remaining_amount: amount,
  currency: 'usd',
  source_configuration_id: null,
  source_fee_type: null,
});

const event = (eventName: string, data: Record<string, unknown>) =>
  JSON.stringify(paymentEvent({ account_id: ACCOUNT, account_type: 'live', event_name: eventName, data }));

const payment = (id: string, amount: number, at: string, feeAmount = 30, fees = [fee(`pyfee_${id}`, 30)]) =>
  event('payment.succeeded', {
    id,
    account_id: ACCOUNT,
    amount,
    currency: 'usd',
    status: 'succeeded',
    capture_strategy: 'automatic',
    fee_amount: feeAmount,
    fees,
    created_at: at,
    updated_at: at,
  });

const close = (period: string) =>
  request(t.app)
    .post(`/api/periods/${period}/close`)
    .set(admin)
    .send({ note: `closing ${period}` });
const get = (path: string) => request(t.app).get(path).set(admin);
const reasonsOf = (response: request.Response) =>
  String(response.body.error.message)
    .replace(/^[^:]+: /, '')
    .split('; ');

async function syncAccounts(payload: object = {}) {
  await runJobThroughApi(t, admin, 'missed-event-sweep', payload);
  await runJobThroughApi(t, admin, 'payout-sync', payload);
  await settle(t);
}

beforeAll(async () => {
  provider = await startSimulator(() => clock);
  t = await startTestApp({
    worker: true,
    now: () => clock,
    env: {
      ...provider.env,
      PROVIDER_SUB_ACCOUNTS: `${ACCOUNT},${IDLE_ACCOUNT}`,
      BUSINESS_TIME_ZONE: 'America/New_York',
      PAYOUT_LOOKBACK_DAYS: '120',
    },
  });
  // The payments here reach Tally straight, never the simulator, whose ledger would then disagree: its listing
  // is made to fail, so the tie-out is stale and out of the way (test/close/tieOut.test.ts tests it).
  await request(provider.simulator.app)
    .post('/dev/ledger-faults')
    .send({ account_id: ACCOUNT, malformed: true });
  const timestamp = String(Math.floor(clock.getTime() / 1000));
  for (const body of [
    payment('py_aug', 1_000, '2026-08-20T15:00:00Z'),
    // September's only activity: a dispute of August's payment.
    event('payment.dispute.created', {
      id: 'dp_sep',
      payment_id: 'py_aug',
      account_id: ACCOUNT,
      amount: 1_000,
      currency: 'usd',
      reason: 'fraudulent',
      status: 'needs_response',
      due_date: '2026-09-30',
      created_at: '2026-09-10T15:00:00Z',
      updated_at: '2026-09-10T15:00:00Z',
    }),
    payment('py_oct', 10_000, '2026-10-10T15:00:00Z'),
    payment('py_oct_late', 2_000, '2026-10-30T15:00:00Z'),
    // Fees of 20 against a fee_amount of 30: fee_total_mismatch, an error, subject a payment of October.
    payment('py_oct_bad', 3_000, '2026-10-12T15:00:00Z', 30, [fee('pyfee_bad', 20)]),
  ])
    expect((await postSigned(t.app, body, { timestamp })).status).toBe(200);
  await settle(t);
  // A payout of 28 October crediting py_oct, paid into the bank on 2 November; py_oct_late is paid out on
  // 2 November.
  await insertPayouts(t.pool, [
    {
      id: 'po_oct',
      account_id: ACCOUNT,
      amount: 9_970,
      created_at: '2026-10-28T15:00:00Z',
      updated_at: '2026-10-30T15:00:00Z',
      deposits_at: '2026-10-30T15:00:00Z',
    },
    {
      id: 'po_nov',
      account_id: ACCOUNT,
      amount: 1_970,
      created_at: '2026-11-02T15:00:00Z',
      updated_at: '2026-11-02T15:00:00Z',
      deposits_at: '2026-11-04T15:00:00Z',
    },
  ]);
  await insertPayoutLines(t.pool, [
    {
      id: 'bt_oct',
      payout_id: 'po_oct',
      account_id: ACCOUNT,
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 10_000,
      fee: 30,
      source_payment_id: 'py_oct',
    },
    {
      id: 'bt_late',
      payout_id: 'po_nov',
      account_id: ACCOUNT,
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 2_000,
      fee: 30,
      source_payment_id: 'py_oct_late',
    },
  ]);
  const statement =
    'date,amount,currency,description,reference\n2026-11-02,99.70,USD,JUSTIFI PAYOUT,po_oct\n';
  const imported = await request(t.app)
    .post('/api/bank-statements?format=csv')
    .set(admin)
    .set('content-type', 'text/csv')
    .send(statement);
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  expect(imported.body.data.matched).toBe(1);
}, 120_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('the close order counts activity of every kind', () => {
  it('lists periods from the earliest activity', async () => {
    const listed = (await get('/api/periods')).body.data.map((row: { period: string }) => row.period);
    expect(listed).toEqual(['2026-11', '2026-10', '2026-09', '2026-08']);
  });

  it('one account that has not synced since the period ended blocks the close, and is named', async () => {
    await syncAccounts({ account_id: ACCOUNT });
    expect(reasonsOf(await close('2026-08'))).toEqual([
      `no missed-event sweep has completed since 2026-08 ended for ${IDLE_ACCOUNT} (last: never)`,
      `no payout sync has completed since 2026-08 ended for ${IDLE_ACCOUNT} (last: never)`,
    ]);
    await syncAccounts();
    expect((await close('2026-08')).status).toBe(200);
  });

  it('a month whose only activity is a dispute blocks the next month’s close', async () => {
    const october = await close('2026-10');
    expect(october.status).toBe(409);
    expect(reasonsOf(october)[0]).toBe('earlier periods with activity are not closed: 2026-09');
    expect((await close('2026-09')).status).toBe(200);
    expect(reasonsOf(await close('2026-10'))).not.toContain(
      'earlier periods with activity are not closed: 2026-09',
    );
  });
});

describe('open items are as at the period’s end', () => {
  it('a payout the bank credited on 2 November is not in the bank in October, nor is its payment paid out then', async () => {
    const october = (await get('/api/periods/2026-10')).body.data;
    expect(october.open_items.payouts_not_in_bank).toEqual([
      {
        id: 'po_oct',
        account_type: 'live',
        account_id: ACCOUNT,
        currency: 'usd',
        amount: 9_970,
        status: 'paid',
        created_at: '2026-10-28T15:00:00.000Z',
      },
    ]);
    expect(october.accounts[0].payouts.in_transit_end).toBe(9_970);
    // py_oct_late (paid out on 2 November), py_aug and py_oct_bad (in no payout) awaited payout at October's end.
    expect(october.open_items.payments_awaiting_payout).toEqual([
      { account_type: 'live', account_id: ACCOUNT, currency: 'usd', payments: 3, amount: 6_000 },
    ]);
    const november = (await get('/api/periods/2026-11')).body.data;
    expect(november.open_items.payouts_not_in_bank.map((row: { id: string }) => row.id)).toEqual(['po_nov']);
  });
});

describe('CLOSE_BLOCKING_SEVERITY', () => {
  let findingId: string;

  it('refuses the close while an error finding of the period is open or acknowledged, listing it', async () => {
    const { rows } = await t.pool.query(
      `select 'fnd_' || id as id, severity, status from findings where code = 'fee_total_mismatch'`,
    );
    expect(rows).toEqual([{ id: expect.stringMatching(/^fnd_/), severity: 'error', status: 'open' }]);
    findingId = rows[0].id;
    const blocked = `findings of severity error or worse are open or acknowledged (accept each with a note to close): ${findingId} fee_total_mismatch (error, py_oct_bad)`;
    expect(reasonsOf(await close('2026-10'))).toEqual([blocked]);
    const acknowledged = await request(t.app)
      .post(`/api/findings/${findingId}/acknowledge`)
      .set(admin)
      .send({});
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
    expect(reasonsOf(await close('2026-10'))).toEqual([blocked]);
  });

  it('blocks warnings too at warning, and nothing at none', async () => {
    const context = { scope: 'test:warning', accountId: ACCOUNT, currency: 'usd', now: clock };
    await recordFindings(t.pool, context, [
      {
        code: 'payment_not_paid_out',
        severity: 'warning',
        subjectType: 'payment',
        subjectId: 'py_oct_bad',
        expected: null,
        actual: null,
        details: {},
        atStake: 3_000,
      },
    ]);
    const refusals = (severity: 'warning' | 'none') =>
      findCloseRefusals(t.pool, '2026-10', { ...t.config, CLOSE_BLOCKING_SEVERITY: severity }, clock);
    const atWarning = await refusals('warning');
    expect(atWarning).toHaveLength(1);
    expect(atWarning[0]).toMatch(/^findings of severity warning or worse are open or acknowledged/);
    expect(atWarning[0]).toContain(`${findingId} fee_total_mismatch (error, py_oct_bad)`);
    expect(atWarning[0]).toMatch(/payment_not_paid_out \(warning, py_oct_bad\)/);
    expect(await refusals('none')).toEqual([]);
    await recordFindings(t.pool, context, []);
  });

  it('accepting the finding with a note lets the close proceed', async () => {
    const accepted = await request(t.app)
      .post(`/api/findings/${findingId}/accept`)
      .set(admin)
      .send({ note: 'the provider confirmed the fee of 20' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const october = await close('2026-10');
    expect(october.status, JSON.stringify(october.body)).toBe(200);
    const stored = (await get('/api/periods/2026-10')).body.data;
    expect(stored.status).toBe('closed');
    expect(stored.open_items.payouts_not_in_bank.map((row: { id: string }) => row.id)).toEqual(['po_oct']);
    expect(stored.open_items.accepted).toEqual([
      expect.objectContaining({
        code: 'fee_total_mismatch',
        accepted: [{ id: findingId, note: 'the provider confirmed the fee of 20' }],
      }),
    ]);
  });
});
