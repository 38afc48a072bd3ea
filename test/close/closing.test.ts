import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { startSimulator } from '../helpers/simulator.ts';

// Closing and reopening months in New York, with the missed-event sweep and the payout sync run through the API
// against the provider simulator, and a delivery that arrives after October was closed.
const admin = { Authorization: `Bearer ${API_TOKEN}` };
const READ_TOKEN = 'finance-token-0123456789';
const reader = { Authorization: `Bearer ${READ_TOKEN}` };
const ACCOUNT = 'acc_close';
let clock = new Date('2026-10-01T10:00:00Z');
let provider: Awaited<ReturnType<typeof startSimulator>>;
let t: TestApp;

const payment = (id: string, amount: number, fee: number, at: string) =>
  JSON.stringify(
    paymentEvent({
      account_id: ACCOUNT,
      account_type: 'live',
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: ACCOUNT,
        amount,
        currency: 'usd',
        status: 'succeeded',
        capture_strategy: 'automatic',
        fee_amount: fee,
        fees: [
          {
            id: `pyfee_${id.slice(3)}`,
            type: 'processing_fee',
            amount: fee,
            remaining_amount: fee,
            currency: 'usd',
            source_configuration_id: null,
            source_fee_type: null,
          },
        ],
        created_at: at,
        updated_at: at,
      },
    }),
  );

const close = (period: string, body: object = {}, auth = admin) =>
  request(t.app).post(`/api/periods/${period}/close`).set(auth).send(body);
const reopen = (period: string, body: object = {}) =>
  request(t.app).post(`/api/periods/${period}/reopen`).set(admin).send(body);
const get = (path: string) => request(t.app).get(path).set(admin);
const reasonsOf = (response: request.Response) =>
  String(response.body.error.message)
    .replace(/^[^:]+: /, '')
    .split('; ');

/** Deliveries signed at the test's clock, as the provider would have sent them then. */
async function deliver(bodies: string[]) {
  const timestamp = String(Math.floor(clock.getTime() / 1000));
  for (const body of bodies) expect((await postSigned(t.app, body, { timestamp })).status).toBe(200);
  await settle(t);
}

async function runSweepAndPayoutSync() {
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
      API_TOKENS: `finance:read:${READ_TOKEN}`,
      // The first payout listing reaches back past py_aug, so every payment here counts in the walk.
      PAYOUT_LOOKBACK_DAYS: '60',
    },
  });
  // The payments here reach Tally straight, never the simulator, whose ledger would then disagree: its listing
  // is made to fail, so the tie-out is stale and out of the way (test/close/tieOut.test.ts tests it).
  await request(provider.simulator.app)
    .post('/dev/ledger-faults')
    .send({ account_id: ACCOUNT, malformed: true });
  await deliver([
    payment('py_aug', 1_000, 30, '2026-08-20T15:00:00Z'),
    payment('py_sep', 2_000, 60, '2026-09-15T15:00:00Z'),
    payment('py_oct', 10_000, 300, '2026-10-10T15:00:00Z'),
    payment('py_nov', 5_000, 150, '2026-11-02T15:00:00Z'),
  ]);
}, 120_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('closing a period', () => {
  it('is refused, naming each reason, until the period ended 24 h ago, earlier months are closed and a sweep and payout sync ran since', async () => {
    // 1 October 06:00 in New York: September ended two hours ago.
    const early = await close('2026-09');
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('close_refused');
    expect(reasonsOf(early)).toEqual([
      "the provider's 24 h retry window after 2026-09 ends at 2026-10-02T04:00:00.000Z",
      'earlier periods with activity are not closed: 2026-08',
      `no missed-event sweep has completed since 2026-09 ended for ${ACCOUNT} (last: never)`,
      `no payout sync has completed since 2026-09 ended for ${ACCOUNT} (last: never)`,
    ]);
    expect(reasonsOf(await close('2026-10'))).toEqual(['2026-10 has not ended']);
    expect((await close('2026-08', {}, reader)).status).toBe(403);

    clock = new Date('2026-10-02T05:00:00Z');
    await runJobThroughApi(t, admin, 'missed-event-sweep');
    expect(reasonsOf(await close('2026-08'))).toEqual([
      `no payout sync has completed since 2026-08 ended for ${ACCOUNT} (last: never)`,
    ]);
    await runJobThroughApi(t, admin, 'payout-sync');
    expect(reasonsOf(await close('2026-09'))).toEqual([
      'earlier periods with activity are not closed: 2026-08',
    ]);
    const { rows } = await t.pool.query('select count(*)::int as n from period_versions');
    expect(rows[0].n).toBe(0);
  });

  it('stores version 1 with who, when, the hash and the data cut-off, and lists the period closed', async () => {
    const august = await close('2026-08', { note: 'August reviewed' });
    expect(august.status, JSON.stringify(august.body)).toBe(200);
    expect(august.body.data).toMatchObject({
      period: '2026-08',
      status: 'closed',
      version: 1,
      closed_by: 'admin',
      closed_at: '2026-10-02T05:00:00.000Z',
      cut_off: {
        last_sweep_at: '2026-10-02T05:00:00.000Z',
        last_payout_sync_at: '2026-10-02T05:00:00.000Z',
        newest_statement_date: null,
      },
      history: [{ action: 'close', version: 1, actor: 'admin', note: 'August reviewed' }],
    });
    expect(august.body.data.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await close('2026-09')).status).toBe(200);

    clock = new Date('2026-11-03T12:00:00Z');
    expect(reasonsOf(await close('2026-10'))).toEqual([
      `no missed-event sweep has completed since 2026-10 ended for ${ACCOUNT} (last: 2026-10-02T05:00:00.000Z)`,
      `no payout sync has completed since 2026-10 ended for ${ACCOUNT} (last: 2026-10-02T05:00:00.000Z)`,
    ]);
    await runSweepAndPayoutSync();
    const october = await close('2026-10', { note: 'October' });
    expect(october.status, JSON.stringify(october.body)).toBe(200);
    expect(october.body.data).toMatchObject({ status: 'closed', version: 1 });

    const listed = (await get('/api/periods')).body.data;
    expect(listed.map((row: { period: string; status: string }) => [row.period, row.status])).toEqual([
      ['2026-11', 'open'],
      ['2026-10', 'closed'],
      ['2026-09', 'closed'],
      ['2026-08', 'closed'],
    ]);
    expect(listed[1]).toMatchObject({ version: 1, closed_by: 'admin', currencies: [{ net: 9_700 }] });
  });
});

describe('a delivery for a closed month', () => {
  let closedJson: string;
  let closedJournal: string;

  beforeAll(async () => {
    closedJson = (await get('/api/periods/2026-10.json')).text;
    closedJournal = (await get('/api/periods/2026-10/journal?format=csv')).text;
    // A payment of 20 October the sweep would have found: it arrives after October was closed.
    await deliver([payment('py_oct_late', 2_500, 100, '2026-10-20T15:00:00Z')]);
    await runJobThroughApi(t, admin, 'closed-period-check');
  });

  it('opens closed_period_changed with the largest change of a walk term at stake, as a warning', async () => {
    const { rows } = await t.pool.query(
      `select severity, status, subject_type, subject_id, at_stake, account_id, currency, details
         from findings where code = 'closed_period_changed'`,
    );
    expect(rows).toEqual([
      {
        severity: 'warning',
        status: 'open',
        subject_type: 'period',
        subject_id: `2026-10:${ACCOUNT}:usd`,
        at_stake: 2_400,
        account_id: ACCOUNT,
        currency: 'usd',
        details: {
          period: '2026-10',
          version: 1,
          account_type: 'live',
          terms: [
            { term: 'net', closed: 9_700, now: 12_100 },
            { term: 'held_end', closed: 12_610, now: 15_010 },
          ],
          items: [
            { kind: 'sale', closed: 10_000, now: 12_500 },
            { kind: 'fee_processing', closed: 300, now: 400 },
          ],
        },
      },
    ]);
  });

  it('serves the closed report and journal unchanged, byte for byte', async () => {
    expect((await get('/api/periods/2026-10.json')).text).toBe(closedJson);
    expect((await get('/api/periods/2026-10/journal?format=csv')).text).toBe(closedJournal);
    const october = (await get('/api/periods/2026-10')).body.data;
    expect(october).toMatchObject({ status: 'closed', version: 1 });
    expect(october.accounts[0].walk.net).toBe(9_700);
  });

  it('books the change in November: adjustment entries dated 1 November, and the walk holds with them', async () => {
    const november = (await get('/api/periods/2026-11')).body.data;
    expect(november.adjusts).toBe('2026-10');
    const w = november.accounts[0].walk;
    expect(w).toEqual({
      held_start: 12_610,
      prior_period_adjustments: 2_400,
      net: 4_850,
      unexplained: 0,
      paid_out: 0,
      held_end: 19_860,
    });
    expect(w.held_start + w.prior_period_adjustments + w.net + w.unexplained - w.paid_out).toBe(w.held_end);
    const rows = parse((await get('/api/periods/2026-11/journal?format=csv')).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(rows.filter((row) => row.reference?.startsWith('adjustment-'))).toEqual([
      expect.objectContaining({
        date: '2026-11-01',
        account: 'clearing',
        debit: '25.00',
        reference: 'adjustment-2026-10-sale',
      }),
      expect.objectContaining({
        date: '2026-11-01',
        account: 'sales',
        credit: '25.00',
        reference: 'adjustment-2026-10-sale',
      }),
      expect.objectContaining({
        account: 'processing_fees',
        debit: '1.00',
        reference: 'adjustment-2026-10-fee_processing',
      }),
      expect.objectContaining({
        account: 'clearing',
        credit: '1.00',
        reference: 'adjustment-2026-10-fee_processing',
      }),
    ]);
    expect(rows.find((row) => row.reference === 'adjustment-2026-10-sale')?.memo).toBe(
      '2026-11 Adjustment to 2026-10: Sales',
    );
  });
});

describe('reopening and closing again', () => {
  it('refuses a reopen without a note, or of a period not the latest closed, changing nothing', async () => {
    const noNote = await reopen('2026-10', { note: '  ' });
    expect(noNote.status).toBe(422);
    expect(noNote.body.error).toMatchObject({ code: 'note_required' });
    expect(noNote.body.error.message).toMatch(/^note: /);
    const notLatest = await reopen('2026-09', { note: 'September again' });
    expect(notLatest.status).toBe(409);
    expect(notLatest.body.error.message).toBe(
      '2026-09 cannot be reopened: only the latest closed period (2026-10) can be reopened',
    );
    expect((await reopen('2026-11', { note: 'open anyway' })).body.error.message).toBe(
      '2026-11 cannot be reopened: 2026-11 is not closed',
    );
    const october = (await get('/api/periods/2026-10')).body.data;
    expect(october).toMatchObject({ status: 'closed', version: 1 });
    expect(october.history).toHaveLength(1);
  });

  it('a reopen with a note takes the adjustments out of November and shows October as it is now', async () => {
    const reopened = await reopen('2026-10', { note: 'late payment py_oct_late' });
    expect(reopened.status).toBe(200);
    expect(reopened.body.data).toMatchObject({ status: 'open', version: null });
    const october = (await get('/api/periods/2026-10')).body.data;
    expect(october.accounts[0].walk).toMatchObject({ held_start: 2_910, net: 12_100, held_end: 15_010 });
    const november = (await get('/api/periods/2026-11')).body.data;
    expect(november.adjusts).toBeNull();
    expect(november.accounts[0].walk).toMatchObject({
      held_start: 15_010,
      prior_period_adjustments: 0,
      held_end: 19_860,
    });
    const journal = (await get('/api/periods/2026-11/journal?format=csv')).text;
    expect(journal).not.toContain('adjustment-');
  });

  it('closing again stores version 2; closing twice is refused and changes nothing; the finding resolves', async () => {
    const again = await close('2026-10', { note: 'October with the late payment' });
    expect(again.body.data).toMatchObject({ status: 'closed', version: 2 });
    const twice = await close('2026-10', { note: 'again' });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toBe('2026-10 cannot be closed: 2026-10 is already closed (version 2)');
    const october = (await get('/api/periods/2026-10')).body.data;
    expect(october.accounts[0].walk.net).toBe(12_100);
    expect(
      october.history.map((row: { action: string; version: number; note: string }) => [
        row.action,
        row.version,
        row.note,
      ]),
    ).toEqual([
      ['close', 1, 'October'],
      ['reopen', 1, 'late payment py_oct_late'],
      ['close', 2, 'October with the late payment'],
    ]);
    await runJobThroughApi(t, admin, 'closed-period-check');
    const { rows } = await t.pool.query(`select status from findings where code = 'closed_period_changed'`);
    expect(rows).toEqual([{ status: 'resolved' }]);
  });
});
