import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, fixtureBodies, fixtureNames, runJobThroughApi, settle } from '../helpers/fixtures.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const DAY = '2026-11-02';
let t: TestApp;
let reportsDir: string;

const live = (id: string, amount: number, currency: string, accountId = 'acc_live_cad') =>
  JSON.stringify(
    paymentEvent({
      account_id: accountId,
      account_type: 'live',
      event_name: 'payment.succeeded',
      data: {
        id,
        account_id: accountId,
        amount,
        currency,
        status: 'succeeded',
        fee_amount: 0,
        fees: [],
        application_fee_amount: 15,
        created_at: `${DAY}T12:00:00Z`,
        updated_at: `${DAY}T12:00:00Z`,
      },
    }),
  );

const runJob = (name: string, body: object) => runJobThroughApi(t, auth, name, body);

async function latest(kind: string) {
  const list = await request(t.app).get(`/api/reports?kind=${kind}`).set(auth);
  expect(list.status).toBe(200);
  return list.body.data[0].id as string;
}

beforeAll(async () => {
  reportsDir = await mkdtemp(path.join(tmpdir(), 'tally-reports-'));
  t = await startTestApp({ worker: true, env: { REPORTS_DIR: reportsDir } });
  await deliver(t.app, [
    ...fixtureNames().flatMap(fixtureBodies),
    live('py_live_1', 10_000, 'cad'),
    live('py_live_2', 2_550, 'cad'),
    live('py_live_usd', 999, 'usd', 'acc_live,"usd"'),
    live('py_other_day', 5_000, 'cad').replaceAll(`${DAY}T12:00:00Z`, '2026-11-03T00:00:00Z'),
  ]);
  await settle(t);
  await runJob('daily-report', { date: DAY });
});
afterAll(() => t.close());

describe('the daily report', () => {
  it('sums the day per account and currency, test and live apart, with exact cents', async () => {
    const report = (
      await request(t.app)
        .get(`/api/reports/${await latest('daily')}.json`)
        .set(auth)
    ).body;
    expect(report.date).toBe(DAY);
    const test = report.accounts.find((row: { account_id: string }) => row.account_id === 'acc_sub_usd');
    // py_card_1 and py_manual_1 settled (1,234 each); the ACH payment failed and py_manual_2 was canceled.
    expect(test).toMatchObject({
      account_type: 'test',
      currency: 'usd',
      payments: 2,
      gross: 2468,
      fees: 59,
      processing_fees: 34,
      platform_fees: 25,
      configured_fees: 34,
      explicit_fees: 25,
      legacy_application_fees: 0,
      refunds: 1,
      refunded: 500,
      returned_fees: 14,
      returned_processing_fees: 14,
      net: 2468 - 59 - 500 + 14,
    });
    expect(report.totals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          account_type: 'live',
          currency: 'cad',
          accounts: 1,
          payments: 2,
          gross: 12_550,
          legacy_application_fees: 30,
        }),
        expect.objectContaining({ account_type: 'live', currency: 'usd', payments: 1, gross: 999 }),
        expect.objectContaining({ account_type: 'test', currency: 'usd', payments: 2, gross: 2468 }),
      ]),
    );
    expect(report.totals).toHaveLength(3);
  });

  it('totals equal the sum of their rows, and the rows equal the payments themselves', async () => {
    const report = (
      await request(t.app)
        .get(`/api/reports/${await latest('daily')}.json`)
        .set(auth)
    ).body;
    for (const total of report.totals) {
      const rows = report.accounts.filter(
        (row: Record<string, unknown>) =>
          row.account_type === total.account_type && row.currency === total.currency,
      );
      for (const column of [
        'payments',
        'gross',
        'fees',
        'refunded',
        'returned_fees',
        'net',
        'legacy_application_fees',
      ]) {
        expect(total[column]).toBe(
          rows.reduce((sum: number, row: Record<string, number>) => sum + (row[column] ?? 0), 0),
        );
      }
    }
    const direct = await t.pool.query(
      `select account_type, currency, sum(amount)::bigint as gross from payments
        where created_at >= $1 and created_at < $1::date + 1 and status in ('succeeded', 'partially_refunded', 'fully_refunded', 'disputed')
        group by 1, 2 order by 1, 2`,
      [DAY],
    );
    expect(direct.rows).toEqual(
      report.totals
        .map((total: Record<string, unknown>) => ({
          account_type: total.account_type,
          currency: total.currency,
          gross: total.gross,
        }))
        .sort((a: Record<string, string>, b: Record<string, string>) =>
          `${a.account_type}${a.currency}`.localeCompare(`${b.account_type}${b.currency}`),
        ),
    );
  });

  it('lists ACH returns by code and category, late returns, forwarding per destination and open findings', async () => {
    const report = (
      await request(t.app)
        .get(`/api/reports/${await latest('daily')}.json`)
        .set(auth)
    ).body;
    expect(report.ach_returns).toEqual([
      {
        account_type: 'test',
        currency: 'usd',
        code: 'INSUFFICIENT_FUNDS',
        late: true,
        returns: 1,
        amount: 1234,
        category: 'funds',
        retryable: true,
      },
    ]);
    expect(report.forwarding).toEqual([
      {
        account_type: 'test',
        destination: 'https://vault.example.com/charge',
        completed: 1,
        completed_error_status: 1,
        failed: 1,
        timeout: 1,
        connection_error: 0,
        internal_error: 0,
      },
    ]);
    expect(report.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'ach_return', findings: 1, at_stake: 1234, account_type: 'test' }),
      ]),
    );
  });

  it('renders CSV with documented sections, RFC 4180 quoting, cents and decimal amounts', async () => {
    const id = await latest('daily');
    const response = await request(t.app).get(`/api/reports/${id}.csv`).set(auth);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    const lines = response.text.split('\r\n');
    expect(lines[0]).toBe('section,summary');
    expect(lines[1]).toMatch(
      /^account_type,currency,accounts,payments,refunds,gross_cents,gross,fees_cents,fees,/,
    );
    expect(lines).toContain('section,accounts');
    expect(lines.find((line) => line.startsWith('live,"acc_live,""usd""",usd,1,0,999,9.99,'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('live,cad,1,2,0,12550,125.50,'))).toBeDefined();
  });

  it('renders a self-contained HTML page: summary first, right-aligned amounts in currency format, findings linked', async () => {
    const response = await request(t.app)
      .get(`/api/reports/${await latest('daily')}.html`)
      .set(auth);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const html = response.text;
    expect(html).toContain(`<title>Daily reconciliation report, ${DAY}</title>`);
    expect(html.indexOf('class="cards"')).toBeLessThan(html.indexOf('<table'));
    expect(html).toContain('CA$125.50');
    expect(html).toContain('<td class="num">$24.68</td>');
    expect(html).toContain('href="/api/payments/py_ach_1"');
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('acc_live,&quot;usd&quot;');
  });

  it('is also written to REPORTS_DIR as JSON, CSV and HTML', async () => {
    const files = (await readdir(reportsDir)).filter((file) => file.startsWith(`daily-${DAY}`)).sort();
    expect(files.map((file) => path.extname(file))).toEqual(['.csv', '.html', '.json']);
    const json = JSON.parse(await readFile(path.join(reportsDir, files[2] as string), 'utf8'));
    expect(json.date).toBe(DAY);
  });

  it('GET /api/reports/:id returns the envelope, and 404 for an unknown id', async () => {
    const id = await latest('daily');
    const response = await request(t.app).get(`/api/reports/${id}`).set(auth);
    expect(response.body).toMatchObject({ id, type: 'report', data: { kind: 'daily', period: DAY } });
    expect((await request(t.app).get('/api/reports/rpt_999999.csv').set(auth)).status).toBe(404);
    expect((await request(t.app).get('/api/reports/nope').set(auth)).status).toBe(404);
  });
});

describe('tally report', () => {
  it('builds a daily report for a given day and writes it where asked', async () => {
    const out = path.join(reportsDir, 'cli.csv');
    const result = spawnSync(
      process.execPath,
      ['src/cli/main.ts', 'report', 'daily', '--date', DAY, '--format', 'csv', '--out', out],
      {
        env: { ...process.env, DATABASE_URL: t.databaseUrl },
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(0);
    expect((await readFile(out, 'utf8')).startsWith('section,summary\r\n')).toBe(true);
  });

  // The first case runs the real CLI; these run the same dispatch in this process.
  it('prints the report as JSON with cents as numbers, like the API', async () => {
    const result = await tallyInProcess(['report', 'daily', '--date', DAY], { DATABASE_URL: t.databaseUrl });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const test = report.accounts.find((row: { account_id: string }) => row.account_id === 'acc_sub_usd');
    expect(test).toMatchObject({ currency: 'usd', payments: 2, gross: 2468, fees: 59 });
  });

  it('refuses a malformed date', async () => {
    const result = await tallyInProcess(['report', 'daily', '--date', '02/11/2026'], {
      DATABASE_URL: t.databaseUrl,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--date must be a day as YYYY-MM-DD');
  });
});
