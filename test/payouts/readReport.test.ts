import { parse } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { runJobThroughApi } from '../helpers/fixtures.ts';
import { seedPayouts } from './readSeed.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const DAY = '2026-11-02';
let t: TestApp;
let reportId: string;

beforeAll(async () => {
  t = await startTestApp({ worker: true, workerJobs: ['daily-report'] });
  await seedPayouts(t.pool);
  await runJobThroughApi(t, auth, 'daily-report', { date: DAY });
  const list = await request(t.app).get('/api/reports?kind=daily').set(auth);
  reportId = list.body.data[0].id;
});
afterAll(() => t.close());

// acc_a (live, usd): po_a1 created and paid on the day (13,710, its credit in the bank), po_a3 failed that day,
// both judged that day (5 lines checked, 1 mismatched); py_wait (2,500, 2026-10-20) and py_wait2 (1,500) await
// a payout, py_r2's finding resolved. acc_b (test, cad): po_b1 paid that day (4,200), no bank credit, judged the
// day before. po_a2 (created the 3rd) and po_esc (October) are not of the day.
const LIVE_USD = {
  account_type: 'live',
  account_id: 'acc_a',
  currency: 'usd',
  created: 1,
  paid: 1,
  failed: 1,
  paid_out: 13_710,
  lines_checked: 5,
  lines_mismatched: 1,
  awaiting_payout: 2,
  awaiting_payout_amount: 4_000,
  oldest_awaiting_at: '2026-10-20T00:00:00.000Z',
  bank_matched: 1,
  bank_unmatched: 0,
};
const TEST_CAD = {
  account_type: 'test',
  account_id: 'acc_b',
  currency: 'cad',
  created: 0,
  paid: 1,
  failed: 0,
  paid_out: 4_200,
  lines_checked: 0,
  lines_mismatched: 0,
  awaiting_payout: 0,
  awaiting_payout_amount: 0,
  oldest_awaiting_at: null,
  bank_matched: 0,
  bank_unmatched: 1,
};

describe("the daily report's payouts section", () => {
  it('counts per account and currency in JSON: created, paid, failed, paid out, lines, awaiting, bank', async () => {
    const report = (await request(t.app).get(`/api/reports/${reportId}.json`).set(auth)).body;
    expect(report.date).toBe(DAY);
    expect(report.payouts).toEqual([LIVE_USD, TEST_CAD]);
  });

  it('is a CSV section with cents and decimals', async () => {
    const text = (await request(t.app).get(`/api/reports/${reportId}.csv`).set(auth)).text;
    const lines = text.split('\r\n');
    const start = lines.indexOf('section,payouts');
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 5)).toEqual([
      'account_type,account_id,currency,created,paid,failed,paid_out_cents,paid_out,lines_checked,lines_mismatched,' +
        'awaiting_payout,awaiting_payout_amount_cents,awaiting_payout_amount,oldest_awaiting_at,bank_matched,bank_unmatched',
      'live,acc_a,usd,1,1,1,13710,137.10,5,1,2,4000,40.00,2026-10-20T00:00:00.000Z,1,0',
      'test,acc_b,cad,0,1,0,4200,42.00,0,0,0,0,0.00,,0,1',
      '',
    ]);
  });

  it('is an HTML table with amounts in their currency', async () => {
    const html = (await request(t.app).get(`/api/reports/${reportId}.html`).set(auth)).text;
    const heading = parse(html)
      .querySelectorAll('h2')
      .find((h2) => h2.textContent.startsWith('Payouts created, paid and failed'));
    expect(heading).toBeDefined();
    const table = heading?.nextElementSibling?.querySelector('table');
    const rows = table
      ?.querySelectorAll('tbody tr')
      .map((row) => row.querySelectorAll('td').map((td) => td.textContent));
    expect(rows).toEqual([
      [
        'live',
        'acc_a',
        'usd',
        '1',
        '1',
        '1',
        '$137.10',
        '5',
        '1',
        '2',
        '$40.00',
        '2026-10-20T00:00:00.000Z',
        '1',
        '0',
      ],
      ['test', 'acc_b', 'cad', '0', '1', '0', 'CA$42.00', '0', '0', '0', 'CA$0.00', '', '0', '1'],
    ]);
  });
});
