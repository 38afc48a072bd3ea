import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { parse as parseHtml } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, runJobThroughApi, settle } from '../helpers/fixtures.ts';
import { insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const ACCOUNT = 'acc_ny';
let t: TestApp;
let reportsDir: string;

const event = (eventName: string, data: Record<string, unknown>) =>
  JSON.stringify(paymentEvent({ account_id: ACCOUNT, account_type: 'live', event_name: eventName, data }));

const fee = (id: string, amount: number, remaining = amount) => ({
  id,
  type: 'processing_fee',
  amount,
  remaining_amount: remaining,
  currency: 'usd',
  source_configuration_id: null,
  source_fee_type: null,
});

const payment = (
  id: string,
  amount: number,
  at: string,
  fees: object[],
  extra: Record<string, unknown> = {},
) => ({
  id,
  account_id: ACCOUNT,
  amount,
  currency: 'usd',
  status: 'succeeded',
  capture_strategy: 'automatic',
  fee_amount: fees.reduce((sum, item) => sum + (item as { amount: number }).amount, 0),
  fees,
  created_at: at,
  updated_at: at,
  ...extra,
});

const dispute = (status: string, updatedAt: string) => ({
  id: 'dp_1',
  payment_id: 'py_disputed',
  account_id: ACCOUNT,
  amount: 4_000,
  currency: 'usd',
  reason: 'fraudulent',
  status,
  due_date: '2026-10-30',
  created_at: '2026-10-15T15:00:00Z',
  updated_at: updatedAt,
});

beforeAll(async () => {
  reportsDir = await mkdtemp(path.join(tmpdir(), 'tally-periods-'));
  t = await startTestApp({
    worker: true,
    env: { BUSINESS_TIME_ZONE: 'America/New_York', REPORTS_DIR: reportsDir },
  });
  const bank = {
    payment_method: { bank_account: { id: 'pm_bank_1', acct_last_four: '6789' } },
    payment_mode: 'ach',
  };
  await deliver(t.app, [
    // 31 October 23:30 in New York (1 November UTC): October's.
    event(
      'payment.succeeded',
      payment('py_oct31_late', 10_000, '2026-11-01T03:30:00Z', [fee('pyfee_late', 300)]),
    ),
    // 1 November 00:30 in New York: November's.
    event('payment.succeeded', payment('py_nov1_early', 5_000, '2026-11-01T04:30:00Z', [])),
    event(
      'payment.refunded',
      payment('py_refunded', 2_000, '2026-10-10T15:00:00Z', [fee('pyfee_refunded', 100, 50)], {
        status: 'partially_refunded',
        amount_refunded: 1_000,
        updated_at: '2026-10-20T15:00:00Z',
        refunds: [
          {
            id: 're_1',
            payment_id: 'py_refunded',
            amount: 1_000,
            status: 'succeeded',
            reason: null,
            returned_fees: [
              {
                id: 'rtfee_1',
                payment_fee_id: 'pyfee_refunded',
                type: 'processing_fee',
                returned_amount: 50,
                original_amount: 100,
                remaining_amount: 50,
                currency: 'usd',
              },
            ],
            created_at: '2026-10-20T15:00:00Z',
            updated_at: '2026-10-20T15:00:00Z',
          },
        ],
      }),
    ),
    event(
      'payment.succeeded',
      payment('py_ach', 3_000, '2026-10-05T15:00:00Z', [fee('pyfee_ach', 60)], bank),
    ),
    event(
      'payment.failed',
      payment('py_ach', 3_000, '2026-10-05T15:00:00Z', [fee('pyfee_ach', 60, 0)], {
        ...bank,
        status: 'failed',
        returned: true,
        amount_returned: 3_000,
        error_code: 'ach_return',
        error_description: 'R01',
        updated_at: '2026-10-12T15:00:00Z',
      }),
    ),
    event('payment.succeeded', payment('py_disputed', 4_000, '2026-10-03T15:00:00Z', [])),
    event('payment.dispute.created', dispute('needs_response', '2026-10-15T15:00:00Z')),
    event('payment.dispute.closed', dispute('won', '2026-10-25T15:00:00Z')),
  ]);
  await settle(t);
  // A payout of the disputed payment with a line for a payment Tally never saw (777), and one that failed.
  await insertPayouts(t.pool, [
    { id: 'po_1', account_id: ACCOUNT, amount: 4_777, created_at: '2026-10-28T15:00:00Z' },
    {
      id: 'po_failed',
      account_id: ACCOUNT,
      amount: 1_000,
      status: 'failed',
      created_at: '2026-10-29T15:00:00Z',
      updated_at: '2026-10-30T15:00:00Z',
    },
  ]);
  await insertPayoutLines(t.pool, [
    {
      id: 'bt_1',
      payout_id: 'po_1',
      account_id: ACCOUNT,
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 4_000,
      source_payment_id: 'py_disputed',
    },
    {
      id: 'bt_unknown',
      payout_id: 'po_1',
      account_id: ACCOUNT,
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 777,
      source_payment_id: 'py_never_seen',
    },
  ]);
  await t.pool.query(
    `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
     values ('bt_1', 'po_1', 'payment', 'py_disputed', 'ok', 4000, 4000, now()),
            ('bt_unknown', 'po_1', null, null, 'payment_unknown', null, 777, now())`,
  );
});
afterAll(() => t.close());

const october = async () => {
  const response = await request(t.app).get('/api/periods/2026-10').set(auth);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
};

describe('the period close report', () => {
  it('counts each item on its business day, and the walk holds to the cent with unexplained the injected line', async () => {
    const report = await october();
    const [row] = report.accounts;
    expect(report.accounts).toHaveLength(1);
    expect(row).toMatchObject({ account_type: 'live', account_id: ACCOUNT, currency: 'usd' });
    expect(row.activity).toEqual({
      sales: 19_000,
      processing_fees: 460,
      platform_fees: 0,
      other_fees: 0,
      fees: 460,
      fees_returned: 110,
      refunds: 1_000,
      disputes_withdrawn: 4_000,
      disputes_returned: 4_000,
      ach_returns: 3_000,
      net: 14_650,
    });
    expect(row.payouts).toEqual({ created: 5_777, reversed: 1_000, paid_out: 4_777, in_transit_end: 4_777 });
    expect(row.walk).toEqual({
      held_start: 0,
      prior_period_adjustments: 0,
      net: 14_650,
      unexplained: 777,
      paid_out: 4_777,
      held_end: 10_650,
    });
    const w = row.walk;
    expect(w.held_start + w.prior_period_adjustments + w.net + w.unexplained - w.paid_out).toBe(w.held_end);
  });

  it("November starts where October ended and holds the payment made after New York's midnight", async () => {
    const response = await request(t.app).get('/api/periods/2026-11.json').set(auth);
    expect(response.status).toBe(200);
    const [row] = response.body.accounts;
    expect(row.activity.sales).toBe(5_000);
    expect(row.walk).toMatchObject({ held_start: 10_650, held_end: 15_650 });
  });

  it('serves CSV and HTML, and lists the periods', async () => {
    const csv = await request(t.app).get('/api/periods/2026-10.csv').set(auth);
    expect(csv.status).toBe(200);
    const [line] = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(line).toMatchObject({
      account_id: ACCOUNT,
      net: '146.50',
      unexplained: '7.77',
      held_end: '106.50',
    });
    const html = await request(t.app).get('/api/periods/2026-10.html').set(auth);
    const page = parseHtml(html.text);
    expect(page.querySelector('p.meta')?.textContent).toMatch(
      /^Days 1 Oct 2026 – 31 Oct 2026, America\/New_York · built /,
    );
    expect(page.querySelectorAll('h2').map((h) => h.textContent)).toEqual([
      "The walk and the provider's ledger",
      'Open items',
      'Activity',
      'Payouts and the bank',
      'Payments awaiting payout',
      'Payouts not in the bank',
    ]);
    const walk = page.querySelectorAll('table')[0]?.querySelector('tbody tr');
    expect(walk?.querySelectorAll('td').map((td) => td.textContent)).toContain('$106.50');
    const periods = await request(t.app).get('/api/periods').set(auth);
    const listed = periods.body.data.map((row: { period: string }) => row.period);
    expect(listed.slice(-2)).toEqual(['2026-11', '2026-10']);
    expect(periods.body.data.at(-1)).toMatchObject({
      status: 'open',
      currencies: [{ currency: 'usd', net: 14_650 }],
    });
  });

  it('refuses a malformed period, one before the earliest activity and one not started, naming period', async () => {
    for (const bad of ['2026-13', 'october', '2026-09', '2099-01']) {
      const response = await request(t.app).get(`/api/periods/${bad}`).set(auth);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/^period: /);
    }
  });
});

describe('the period-report job', () => {
  it('writes the named month to REPORTS_DIR through POST /api/jobs/period-report', async () => {
    await runJobThroughApi(t, auth, 'period-report', { period: '2026-10' });
    const written = JSON.parse(await readFile(path.join(reportsDir, 'period-2026-10.json'), 'utf8'));
    expect(written.accounts[0].walk.held_end).toBe(10_650);
    // The closed periods are checked by their own queue, not inside this job.
    expect(await t.boss.findJobs('closed-period-check')).toHaveLength(1);
  });

  it('stores the report it built, listed by GET /api/reports and served as JSON, CSV and HTML', async () => {
    const listed = await request(t.app).get('/api/reports?kind=period').set(auth);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    const [row] = listed.body.data;
    expect(row).toEqual({
      id: expect.stringMatching(/^rpt_\d+$/),
      kind: 'period',
      period: '2026-10',
      created_at: expect.any(String),
      links: {
        json: `/api/reports/${row.id}.json`,
        csv: `/api/reports/${row.id}.csv`,
        html: `/api/reports/${row.id}.html`,
      },
    });
    const byMonth = await request(t.app).get('/api/reports?period=2026-10').set(auth);
    expect(byMonth.body.data.map((report: { id: string }) => report.id)).toEqual([row.id]);
    const json = await request(t.app).get(row.links.json).set(auth);
    const written = await readFile(path.join(reportsDir, 'period-2026-10.json'), 'utf8');
    // Stored as jsonb, which keeps its own key order: the same report, not the same bytes.
    expect(JSON.parse(json.text)).toEqual(JSON.parse(written));
    const envelope = await request(t.app).get(`/api/reports/${row.id}`).set(auth);
    expect(envelope.body.data).toMatchObject({ kind: 'period', period: '2026-10' });
    expect(envelope.body.data.body.accounts[0].walk.held_end).toBe(10_650);
    const csv = await request(t.app).get(row.links.csv).set(auth);
    expect(csv.headers['content-disposition']).toContain('period-2026-10.csv');
    expect(csv.text).toBe(await readFile(path.join(reportsDir, 'period-2026-10.csv'), 'utf8'));
    const html = await request(t.app).get(row.links.html).set(auth);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toBe(await readFile(path.join(reportsDir, 'period-2026-10.html'), 'utf8'));
  });
});

describe('the journal', () => {
  const journal = (query: string) => request(t.app).get(`/api/periods/2026-10/journal?${query}`).set(auth);
  const cents = (value: string) => (value === '' ? 0 : Math.round(Number(value) * 100));

  it('csv: every entry balances, amounts with two decimals', async () => {
    const response = await journal('format=csv');
    expect(response.status).toBe(200);
    const rows = parse(response.text, { columns: true }) as Record<string, string>[];
    const sums = new Map<string, number>();
    for (const row of rows) {
      for (const amount of [row.debit, row.credit]) expect(amount).toMatch(/^(\d+\.\d\d)?$/);
      sums.set(
        row.entry as string,
        (sums.get(row.entry as string) ?? 0) + cents(row.debit as string) - cents(row.credit as string),
      );
    }
    expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
    const sales = rows.filter((row) => row.account === 'sales');
    expect(sales.reduce((sum, row) => sum + cents(row.credit as string), 0)).toBe(19_000);
    expect(rows.find((row) => row.account === 'unexplained')).toMatchObject({
      entry: 'tally-2026-10-usd-20261028-unexplained-po_1',
      credit: '7.77',
      reference: 'po_1',
    });
  });

  it('xero: dates dd mmm yyyy, signed amounts summing to zero per narration, no bank lines, X-Parts', async () => {
    const response = await journal('format=xero');
    expect(response.status).toBe(200);
    expect(response.headers['x-parts']).toBe('1');
    const rows = parse(response.text, { columns: true }) as Record<string, string>[];
    const sums = new Map<string, number>();
    for (const row of rows) {
      expect(row['*Date']).toMatch(/^\d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}$/);
      expect(row['*TaxRate']).toBe('Tax Exempt');
      expect(row['*AccountCode']).not.toBe('bank');
      sums.set(
        row['*Narration'] as string,
        (sums.get(row['*Narration'] as string) ?? 0) + cents(row['*Amount'] as string),
      );
    }
    expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
    expect(rows.some((row) => row['*Date'] === '31 Oct 2026')).toBe(true);
    expect(rows[0]?.['*Narration']).toBe('2026-10 Sales 2026-10-03 (tally-2026-10-usd-20261003-sale)');
  });

  it('quickbooks: IIF headers, each transaction sums to zero', async () => {
    const response = await journal('format=quickbooks');
    expect(response.status).toBe(200);
    const lines = parse(response.text, { delimiter: '\t', relax_column_count: true }) as string[][];
    expect(lines.slice(0, 3).map((line) => line[0])).toEqual(['!TRNS', '!SPL', '!ENDTRNS']);
    const sale = lines.filter((line) => line[5] === 'tally-2026-10-usd-20261003-sale');
    expect(sale.map((line) => [line[0], line[3]])).toEqual([
      ['TRNS', 'clearing'],
      ['SPL', 'sales'],
    ]);
    let sum = 0;
    let transactions = 0;
    for (const line of lines.slice(3)) {
      if (line[0] === 'ENDTRNS') {
        expect(sum).toBe(0);
        transactions += 1;
        continue;
      }
      expect(line[1]).toBe('GENERAL JOURNAL');
      expect(line[2]).toMatch(/^\d\d\/\d\d\/\d{4}$/);
      sum = (line[0] === 'TRNS' ? 0 : sum) + cents(line[4] as string);
    }
    expect(transactions).toBeGreaterThan(5);
  });

  it('netsuite: deterministic external ids, consecutive lines, balanced', async () => {
    const first = await journal('format=netsuite');
    const again = await journal('format=netsuite');
    expect(first.text).toBe(again.text);
    const rows = parse(first.text, { columns: true }) as Record<string, string>[];
    expect(rows[0]?.['External ID']).toBe('tally-2026-10-usd-20261003-sale');
    expect(rows.find((row) => row.Account === 'unexplained')?.['External ID']).toMatch(
      /^tally-2026-10-usd-20261028-unexplained-po_1$/,
    );
    const sums = new Map<string, number>();
    for (const row of rows)
      sums.set(
        row['External ID'] as string,
        (sums.get(row['External ID'] as string) ?? 0) +
          cents(row.Debit as string) -
          cents(row.Credit as string),
      );
    expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
  });

  it('refuses an unknown format naming format', async () => {
    const response = await journal('format=sage');
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^format: /);
  });
});
