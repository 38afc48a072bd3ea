import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { runJobThroughApi } from '../helpers/fixtures.ts';

// The report reads only projections, and the dispute projection is written apart: the rows are inserted as
// the projections would hold them. The day is 2026-11-05; "earlier" is 2026-11-01.
const FIXTURES = `
insert into disputes (id, account_type, account_id, currency, amount, status, created_at, updated_at, event_row_id, snapshot)
select *, 0, '{}'::jsonb from (values
  -- live usd: opened today and still open; won, forfeited and lost today (lost at the day's first instant);
  -- open since an earlier day (at risk, not opened); won yesterday; opened tomorrow.
  ('dp_opened',        'live', 'acc_live', 'usd', 1500, 'needs_response', '2026-11-05T10:00:00Z'::timestamptz, '2026-11-05T10:00:00Z'::timestamptz),
  ('dp_won',           'live', 'acc_live', 'usd', 2000, 'won',            '2026-11-01T12:00:00Z', '2026-11-05T11:00:00Z'),
  ('dp_forfeited',     'live', 'acc_live', 'usd',  700, 'forfeited',      '2026-11-01T12:00:00Z', '2026-11-05T23:59:59Z'),
  ('dp_lost',          'live', 'acc_live', 'usd',  300, 'lost',           '2026-11-01T12:00:00Z', '2026-11-05T00:00:00Z'),
  ('dp_open_before',   'live', 'acc_live', 'usd', 4000, 'under_review',   '2026-11-01T12:00:00Z', '2026-11-03T12:00:00Z'),
  ('dp_won_yesterday', 'live', 'acc_live', 'usd', 9000, 'won',            '2026-11-01T12:00:00Z', '2026-11-04T23:59:59Z'),
  ('dp_tomorrow',      'live', 'acc_live', 'usd', 8000, 'won',            '2026-11-06T00:00:00Z', '2026-11-06T12:00:00Z'),
  -- live cad: two opened today, one of them lost the same day; one in a status Tally does not know.
  ('dp_cad_open',      'live', 'acc_live', 'cad',  900, 'needs_response', '2026-11-05T12:00:00Z', '2026-11-05T12:00:00Z'),
  ('dp_cad_lost',      'live', 'acc_live', 'cad',  250, 'lost',           '2026-11-05T08:00:00Z', '2026-11-05T18:00:00Z'),
  ('dp_cad_other',     'live', 'acc_live', 'cad',  444, 'warning_closed', '2026-11-01T12:00:00Z', '2026-11-05T12:00:00Z'),
  -- test usd (an account id a page must escape): won today, open since earlier.
  ('dp_test_won',      'test', 'acc_test<&>', 'usd', 1234, 'won',          '2026-11-01T12:00:00Z', '2026-11-05T12:00:00Z'),
  ('dp_test_open',     'test', 'acc_test<&>', 'usd',  600, 'under_review', '2026-11-01T12:00:00Z', '2026-11-01T12:00:00Z')
) as d (id, account_type, account_id, currency, amount, status, created_at, updated_at);

insert into payments (id, account_type, account_id, currency, amount, status, method_kind, returned, created_at,
                      succeeded_at, failed_at, canceled_at, updated_at, event_row_id, snapshot)
select *, now(), 0, '{}'::jsonb from (values
  -- live usd. An ACH return of an earlier payment (both fees back); a void (one fee back, one fee without
  -- remaining_amount); a payment settled today and partly refunded today; one refunded earlier and
  -- ACH-returned today; an ACH payment that failed at once and a void of yesterday (nothing back today).
  ('py_ach_return',         'live', 'acc_live', 'usd', 10000, 'failed',             'ach',  true,  '2026-11-01T12:00:00Z'::timestamptz, '2026-11-01T12:00:00Z'::timestamptz, '2026-11-05T09:00:00Z'::timestamptz, null::timestamptz),
  ('py_void',               'live', 'acc_live', 'usd',  3000, 'canceled',           'card', false, '2026-11-05T08:00:00Z', null, null, '2026-11-05T08:10:00Z'),
  ('py_refunded',           'live', 'acc_live', 'usd',  5000, 'partially_refunded', 'card', false, '2026-11-05T12:00:00Z', '2026-11-05T12:00:00Z', null, null),
  ('py_refund_then_return', 'live', 'acc_live', 'usd',  8000, 'failed',             'ach',  true,  '2026-11-01T12:00:00Z', '2026-11-01T12:00:00Z', '2026-11-05T14:00:00Z', null),
  ('py_failed_at_once',     'live', 'acc_live', 'usd',   700, 'failed',             'ach',  false, '2026-11-05T12:00:00Z', null, '2026-11-05T12:00:00Z', null),
  ('py_void_yesterday',     'live', 'acc_live', 'usd',   100, 'canceled',           'card', false, '2026-11-04T12:00:00Z', null, null, '2026-11-04T23:59:59Z'),
  -- live cad: a void handing back part of a fee; a return known only by \`returned\`.
  ('py_cad_void',           'live', 'acc_live', 'cad',  4000, 'canceled',           'card', false, '2026-11-05T12:00:00Z', null, null, '2026-11-05T12:00:00Z'),
  ('py_cad_return',         'live', 'acc_live', 'cad',  6000, 'failed',             'ach',  true,  '2026-11-01T12:00:00Z', null, '2026-11-05T12:00:00Z', null),
  -- test usd: an ACH return (known by its earlier success), and a payment refunded today.
  ('py_test_return',        'test', 'acc_test<&>', 'usd', 1000, 'failed',             'ach',  false, '2026-11-01T12:00:00Z', '2026-11-01T12:00:00Z', '2026-11-05T12:00:00Z', null),
  ('py_test_refunded',      'test', 'acc_test<&>', 'usd', 1000, 'partially_refunded', 'card', false, '2026-11-05T12:00:00Z', '2026-11-05T12:00:00Z', null, null)
) as p;

insert into payment_fees (id, payment_id, type, amount, remaining_amount, snapshot_updated_at)
select *, now() from (values
  ('pyfee_ach_1',          'py_ach_return',         'processing_fee', 150,   0),
  ('pyfee_ach_2',          'py_ach_return',         'platform_fee',   100,   0),
  ('pyfee_void',           'py_void',               'processing_fee',  59,   0),
  ('pyfee_void_unknown',   'py_void',               'platform_fee',    40, null),
  ('pyfee_refunded',       'py_refunded',           'processing_fee', 145, 100),
  ('pyfee_rtr',            'py_refund_then_return', 'processing_fee', 200,   0),
  ('pyfee_failed_at_once', 'py_failed_at_once',     'processing_fee',  30,   0),
  ('pyfee_void_yesterday', 'py_void_yesterday',     'processing_fee',  33,   0),
  ('pyfee_cad_void',       'py_cad_void',           'processing_fee',  80,  10),
  ('pyfee_cad_return',     'py_cad_return',         'processing_fee', 120,   0),
  ('pyfee_test_return',    'py_test_return',        'processing_fee',  33,   0),
  ('pyfee_test_refunded',  'py_test_refunded',      'processing_fee',  29,  19)
) as f;

-- The projection keeps each payment's fee totals with it, from the same fee list (none of these is configured).
update payments p set fees_total = f.total, fees_processing = f.processing, fees_platform = f.platform,
                      fees_explicit = f.total
  from (select payment_id, sum(amount) as total,
               coalesce(sum(amount) filter (where type = 'processing_fee'), 0) as processing,
               coalesce(sum(amount) filter (where type = 'platform_fee'), 0) as platform
          from payment_fees group by payment_id) f
 where f.payment_id = p.id;

-- \`success\` is the provider's other spelling of succeeded.
insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot)
select id, payment_id, amount, status, created_at, created_at, 0, '{}'::jsonb from (values
  ('re_today',   'py_refunded',           2000, 'succeeded', '2026-11-05T15:00:00Z'::timestamptz),
  ('re_earlier', 'py_refund_then_return', 3000, 'succeeded', '2026-11-03T12:00:00Z'),
  ('re_test',    'py_test_refunded',       500, 'success',   '2026-11-05T12:00:00Z')
) as r (id, payment_id, amount, status, created_at);

insert into returned_fees (id, refund_id, payment_fee_id, type, returned_amount) values
  ('rtfee_today',   're_today',   'pyfee_refunded',      'processing_fee', 45),
  ('rtfee_earlier', 're_earlier', 'pyfee_rtr',           'processing_fee', 75),
  ('rtfee_test',    're_test',    'pyfee_test_refunded', 'processing_fee', 10);
`;

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const live = { account_type: 'live', account_id: 'acc_live' };
const test = { account_type: 'test', account_id: 'acc_test<&>' };
const DISPUTE_COLUMNS = ['opened', 'opened_amount', 'won', 'won_amount', 'lost', 'lost_amount'];
const DISPUTE_MORE_COLUMNS = ['other', 'other_amount', 'open', 'at_risk'];
const REASON_COLUMNS = ['refund', 'ach_return', 'void', 'total'];
const row = (account: object, currency: string, columns: string[], values: number[]) => ({
  ...account,
  currency,
  ...Object.fromEntries(columns.map((column, index) => [column, values[index]])),
});
const disputeRow = (account: object, currency: string, values: number[]) =>
  row(account, currency, [...DISPUTE_COLUMNS, ...DISPUTE_MORE_COLUMNS], values);

let t: TestApp;
let reportId: string;
let report: Record<string, Record<string, unknown>[]>;

const runJob = (name: string, body: object) => runJobThroughApi(t, auth, name, body);

beforeAll(async () => {
  t = await startTestApp({ worker: true, workerJobs: ['daily-report'] });
  await t.pool.query(FIXTURES);
  await runJob('daily-report', { date: '2026-11-05' });
  reportId = (await request(t.app).get('/api/reports?kind=daily').set(auth)).body.data[0].id;
  report = (await request(t.app).get(`/api/reports/${reportId}.json`).set(auth)).body;
});
afterAll(() => t.close());

describe('the daily report with disputes, ACH returns and voids', () => {
  it('counts disputes opened, won and lost (forfeited included) on the day, and open ones at risk whatever their day', () => {
    expect(report.disputes).toEqual([
      disputeRow(live, 'cad', [2, 1150, 0, 0, 1, 250, 1, 444, 1, 900]),
      disputeRow(live, 'usd', [1, 1500, 1, 2000, 2, 300 + 700, 0, 0, 2, 1500 + 4000]),
      disputeRow(test, 'usd', [0, 0, 1, 1234, 0, 0, 0, 0, 1, 600]),
    ]);
  });

  it('breaks fees returned down by reason, counting what a refund already returned once', () => {
    expect(report.returned_fees_by_reason).toEqual([
      row(live, 'cad', REASON_COLUMNS, [0, 120, 80 - 10, 190]),
      row(live, 'usd', REASON_COLUMNS, [45, 150 + 100 + (200 - 75), 59, 479]),
      row(test, 'usd', REASON_COLUMNS, [10, 33, 0, 43]),
    ]);
  });

  it('keeps returned_fees and net meaning fees returned by refunds, and every total the sum of its rows', () => {
    const accountColumns = ['payments', 'gross', 'fees', 'refunds', 'refunded', 'returned_fees', 'net'];
    expect(report.accounts).toEqual([
      expect.objectContaining(
        row(live, 'usd', accountColumns, [1, 5000, 145, 1, 2000, 45, 5000 - 145 - 2000 + 45]),
      ),
      expect.objectContaining(
        row(test, 'usd', accountColumns, [1, 1000, 29, 1, 500, 10, 1000 - 29 - 500 + 10]),
      ),
    ]);
    for (const reasons of report.returned_fees_by_reason ?? []) {
      expect(reasons.total).toBe(Number(reasons.refund) + Number(reasons.ach_return) + Number(reasons.void));
      const account = report.accounts?.find((other) =>
        ['account_type', 'account_id', 'currency'].every((key) => other[key] === reasons[key]),
      );
      expect(reasons.refund).toBe(account?.returned_fees ?? 0);
    }
    for (const total of report.totals ?? []) {
      const rows = (report.accounts ?? []).filter(
        (account) => account.account_type === total.account_type && account.currency === total.currency,
      );
      for (const column of accountColumns)
        expect(total[column]).toBe(rows.reduce((sum, account) => sum + Number(account[column]), 0));
    }
  });

  it('renders the new sections in CSV with cents and decimal columns', async () => {
    const lines = (await request(t.app).get(`/api/reports/${reportId}.csv`).set(auth)).text.split('\r\n');
    // A section's header and rows: the lines after `section,<name>` up to the empty line that ends it.
    const section = (name: string) => {
      const start = lines.indexOf(`section,${name}`) + 1;
      return lines.slice(start, lines.indexOf('', start));
    };
    expect(section('returned_fees_by_reason')).toEqual([
      'account_type,account_id,currency,refund_cents,refund,ach_return_cents,ach_return,void_cents,void,total_cents,total',
      'live,acc_live,cad,0,0.00,120,1.20,70,0.70,190,1.90',
      'live,acc_live,usd,45,0.45,375,3.75,59,0.59,479,4.79',
      'test,acc_test<&>,usd,10,0.10,33,0.33,0,0.00,43,0.43',
    ]);
    expect(section('disputes')).toEqual([
      'account_type,account_id,currency,opened,opened_amount_cents,opened_amount,won,won_amount_cents,won_amount,' +
        'lost,lost_amount_cents,lost_amount,other,other_amount_cents,other_amount,open,at_risk_cents,at_risk',
      'live,acc_live,cad,2,1150,11.50,0,0,0.00,1,250,2.50,1,444,4.44,1,900,9.00',
      'live,acc_live,usd,1,1500,15.00,1,2000,20.00,2,1000,10.00,0,0,0.00,2,5500,55.00',
      'test,acc_test<&>,usd,0,0,0.00,1,1234,12.34,0,0,0.00,0,0,0.00,1,600,6.00',
    ]);
  });

  it('renders the new sections in HTML, amounts right-aligned in each row currency, text escaped', async () => {
    const html = (await request(t.app).get(`/api/reports/${reportId}.html`).set(auth)).text;
    const table = (title: string) =>
      html.slice(html.indexOf(title), html.indexOf('</table>', html.indexOf(title)));
    const disputes = table('<h2>Disputes');
    expect(disputes).toContain('<td class="num">CA$9.00</td>');
    expect(disputes).toContain('<td class="num">$55.00</td>');
    expect(disputes).toContain('<td>acc_test&lt;&amp;&gt;</td>');
    const reasons = table('<h2>Fees returned by reason');
    expect(reasons).toContain('<td class="num">$3.75</td>');
    expect(reasons).toContain('<td class="num">CA$0.70</td>');
    expect(html).not.toContain('acc_test<&>');
  });
});
