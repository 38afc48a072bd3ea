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

const FORMATS = ['csv', 'xero', 'quickbooks', 'netsuite'] as const;
// October's version 1 journal in each format, as finance imported it before the reopen.
const versionOne: Record<string, string> = {};

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
    for (const format of FORMATS)
      versionOne[format] = (await get(`/api/periods/2026-10/journal?format=${format}`)).text;
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
    const changes = await get('/api/periods/2026-10/journal?format=csv&changes_since=1');
    expect(changes.status).toBe(409);
    expect(changes.body.error).toEqual({
      code: 'not_closed_at_a_later_version',
      message:
        'changes_since: 2026-10 is open (reopened after version 1); the changes since version 1 can be taken once it is closed again',
    });
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

describe('the changes journal after a reopen', () => {
  const journal = (query: string) => get(`/api/periods/2026-10/journal?${query}`);
  const cents = (value: string | undefined) => (value ? Math.round(Number(value) * 100) : 0);
  const LATE = ['tally-2026-10-usd-20261020-sale', 'tally-2026-10-usd-20261020-fee_processing'];

  /** Per entry id, its lines as `account amount` (debit positive), from a journal file in any format. */
  function entriesOf(format: string, text: string): Map<string, string[]> {
    const entries = new Map<string, string[]>();
    const add = (id: string, account: string, amount: number) =>
      entries.set(id, [...(entries.get(id) ?? []), `${account} ${amount}`]);
    if (format === 'quickbooks') {
      for (const line of text.split('\r\n').slice(3)) {
        const [kind, , , account, amount, id] = line.split('\t');
        if (kind === 'TRNS' || kind === 'SPL') add(id as string, account as string, cents(amount));
      }
      return entries;
    }
    for (const row of parse(text, { columns: true }) as Record<string, string>[]) {
      if (format === 'csv')
        add(row.entry as string, row.account as string, cents(row.debit) - cents(row.credit));
      if (format === 'netsuite')
        add(row['External ID'] as string, row.Account as string, cents(row.Debit) - cents(row.Credit));
      if (format === 'xero')
        add(
          /\((tally-[^)]+)\)$/.exec(row['*Narration'] as string)?.[1] as string,
          row['*AccountCode'] as string,
          cents(row['*Amount']),
        );
    }
    return entries;
  }

  it.each(FORMATS)(
    '%s: holds exactly the late payment’s entries, balanced, dated on their own day',
    async (format) => {
      const response = await journal(`format=${format}&changes_since=1`);
      expect(response.status, response.text).toBe(200);
      const changes = entriesOf(format, response.text);
      expect([...changes.keys()]).toEqual(LATE.map((id) => `${id}-v2`));
      expect(changes.get(`${LATE[0]}-v2`)).toEqual(['clearing 2500', 'sales -2500']);
      expect(changes.get(`${LATE[1]}-v2`)).toEqual(['processing_fees 100', 'clearing -100']);
      for (const lines of changes.values())
        expect(lines.reduce((sum, line) => sum + Number(line.split(' ')[1]), 0)).toBe(0);
      if (format === 'csv') expect(response.text).toContain('2026-10-20,clearing,25.00');
      if (format === 'quickbooks') expect(response.text).toContain('\t10/20/2026\t');
      expect(response.headers['content-disposition']).toContain('journal-2026-10-v2-changes-since-v1-');
    },
  );

  it.each(FORMATS)('%s: the entries version 1 had keep their ids and lines in version 2', async (format) => {
    const before = entriesOf(format, versionOne[format] as string);
    const after = entriesOf(format, (await journal(`format=${format}`)).text);
    expect(before.size).toBeGreaterThan(0);
    for (const [id, lines] of before) expect(after.get(id), id).toEqual(lines);
    expect([...after.keys()].filter((id) => !before.has(id))).toEqual(LATE);
  });

  it('refuses changes since a version the period is not closed after (409) or has not reached (400), naming them', async () => {
    const same = await journal('format=csv&changes_since=2');
    expect(same.status).toBe(409);
    expect(same.body.error.message).toBe(
      'changes_since: 2026-10 is closed at version 2, not at a version later than 2',
    );
    const ahead = await journal('format=csv&changes_since=3');
    expect(ahead.status).toBe(400);
    expect(ahead.body.error.message).toBe(
      'changes_since: 2026-10 has not reached version 3 (its latest is version 2)',
    );
    for (const bad of ['abc', '0', '1.5']) {
      const response = await journal(`format=csv&changes_since=${bad}`);
      expect(response.status, bad).toBe(400);
      expect(response.body.error.message).toBe('changes_since: must be a version number (1, 2, …)');
    }
    const never = await get('/api/periods/2026-11/journal?format=csv&changes_since=1');
    expect(never.status).toBe(400);
    expect(never.body.error.message).toBe(
      'changes_since: 2026-11 has never been closed, so it has no version 1',
    );
  });

  it('records every download of the closed period, with its version, format, changes_since and actor', async () => {
    const october = (await get('/api/periods/2026-10')).body.data;
    const exports = october.exports.map(
      (row: { version: number; format: string; changes_since: number | null; actor: string }) =>
        `${row.version} ${row.format} ${row.changes_since ?? '-'} ${row.actor}`,
    );
    // Version 1 before the reopen (the reopened period's refused request is no download), then version 2's
    // changes and whole journals; the refused requests above are not downloads either.
    expect(exports).toEqual([
      ...['csv', 'csv', 'xero', 'quickbooks', 'netsuite', 'csv'].map((format) => `1 ${format} - admin`),
      ...FORMATS.map((format) => `2 ${format} 1 admin`),
      ...FORMATS.map((format) => `2 ${format} - admin`),
    ]);
    expect(
      october.exports.every((row: { created_at: string }) => !Number.isNaN(Date.parse(row.created_at))),
    ).toBe(true);
  });
});
