import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { settle } from '../helpers/fixtures.ts';
import { page, signIn, textOf } from './signIn.ts';

// The console's periods: the list, a period's walk, open items linked to their findings, downloads, and the
// close and reopen forms for admins only. The sweep and payout sync the close rules need are inserted as run
// records (the jobs themselves run in test/close/closing.test.ts).
const READ_TOKEN = 'finance-console-token-0123456789';
const MARKUP = '<i>esc</i>';
let t: TestApp;
let admin: Awaited<ReturnType<typeof signIn>>;
let reader: Awaited<ReturnType<typeof signIn>>;
let findingId: string;
// Two months back (UTC): ended more than 24 h ago whatever today is.
const start = new Date();
start.setUTCDate(1);
start.setUTCMonth(start.getUTCMonth() - 2);
const PERIOD = start.toISOString().slice(0, 7);

beforeAll(async () => {
  t = await startTestApp({ worker: true, env: { API_TOKENS: `finance:read:${READ_TOKEN}` } });
  const at = `${PERIOD}-10T15:00:00.000Z`;
  const data = {
    id: 'py_console_period',
    account_id: 'acc_console',
    amount: 10_000,
    currency: 'usd',
    status: 'succeeded',
    capture_strategy: 'automatic',
    fee_amount: 0,
    fees: [],
    created_at: at,
    updated_at: at,
  };
  const event = paymentEvent({
    account_id: 'acc_console',
    account_type: 'live',
    event_name: 'payment.succeeded',
    data,
  });
  expect((await postSigned(t.app, event)).status).toBe(200);
  await settle(t);
  const { rows } = await t.pool.query(
    `insert into findings (code, severity, subject_type, subject_id, account_id, currency, expected, actual, at_stake,
                           details, scope, first_seen_at, last_seen_at)
     values ('payment_not_paid_out', 'warning', 'payment', 'py_console_period', $1, 'usd', 'null', 'null', 10000,
             '{}', 'test', now(), now())
     returning id`,
    [MARKUP],
  );
  findingId = `fnd_${rows[0].id}`;
  await t.pool.query(
    `insert into sweep_runs (account_id, kind, status, started_at, finished_at)
       values ('acc_console', 'sweep', 'completed', now(), now())`,
  );
  await t.pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, newest_payout_created_at) values ('acc_console', now(), null)`,
  );
  admin = await signIn(t, API_TOKEN);
  reader = await signIn(t, READ_TOKEN);
}, 60_000);
afterAll(() => t.close());

const cells = (html: string, table = 0) =>
  (parse(html).querySelectorAll('main table')[table]?.querySelectorAll('tbody tr') ?? []).map((row) =>
    row.querySelectorAll('td').map((td) => td.textContent.trim()),
  );

describe('the console periods', () => {
  it('are in the navigation and list every month with its state and net', async () => {
    const { response, html } = await page(admin, '/console/periods');
    expect(response.status).toBe(200);
    const nav = parse(html).querySelector('nav a[href="/console/periods"]');
    expect(nav?.textContent).toBe('Periods');
    expect(nav?.getAttribute('aria-current')).toBe('page');
    const rows = cells(html);
    expect(rows.at(-1)).toEqual([PERIOD, 'open', '—', '—', '—', 'live $100.00', '1']);
  });

  it("show a period's walk, its open items linked to their findings (escaped) and every download", async () => {
    const { html } = await page(admin, `/console/periods/${PERIOD}`);
    // The provider's ledger beside the walk: this account's payout sync lists no ledger, so both read "—".
    expect(cells(html, 0)).toEqual([
      ['live', 'acc_console', '$0.00', '$0.00', '$100.00', '$0.00', '$0.00', '$100.00', '—', '—'],
    ]);
    expect(cells(html, 1)[0]?.slice(0, 5)).toEqual(['payment_not_paid_out', 'open', MARKUP, '1', '$100.00']);
    expect(html).not.toContain(MARKUP);
    expect(html).toContain('&lt;i&gt;esc&lt;/i&gt;');
    const link = parse(html).querySelector(`a[href="/console/findings/${findingId}"]`);
    expect(link?.textContent).toBe(findingId);
    const downloads = parse(html)
      .querySelectorAll('main p a')
      .map((a) => a.getAttribute('href') as string);
    expect(downloads).toEqual([
      `/console/periods/${PERIOD}.json`,
      `/console/periods/${PERIOD}.csv`,
      `/console/periods/${PERIOD}.html`,
      ...['csv', 'xero', 'quickbooks', 'netsuite'].map(
        (f) => `/console/periods/${PERIOD}/journal?format=${f}`,
      ),
    ]);
    for (const href of downloads) expect((await admin.get(href)).status, href).toBe(200);
    expect(JSON.parse((await admin.get(downloads[0] as string)).text).period).toBe(PERIOD);
  });

  it("show a period's activity, payouts and bank, and payments awaiting payout, over its business days", async () => {
    const { html } = await page(reader, `/console/periods/${PERIOD}`);
    const headings = parse(html)
      .querySelectorAll('main h2')
      .map((h) => h.textContent);
    expect(headings).toEqual([
      "The walk and the provider's ledger",
      'Open items',
      'Activity',
      'Payouts and the bank',
      'Payments awaiting payout',
      'Payouts not in the bank',
    ]);
    expect(cells(html, 2)).toEqual([
      ['live', 'acc_console', '$100.00', ...Array(8).fill('$0.00'), '$100.00'],
    ]);
    expect(cells(html, 3)).toEqual([['live', 'acc_console', ...Array(6).fill('$0.00')]]);
    expect(cells(html, 4)).toEqual([['live', 'acc_console', '1', '$100.00']]);
    expect(textOf(html)).toContain("Every payout up to the period's end is confirmed by a bank credit.");
    const last = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
    const month = start.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
    expect(textOf(html)).toContain(
      `Days 1 ${month} ${start.getUTCFullYear()} – ${last} ${month} ${start.getUTCFullYear()}, UTC`,
    );
  });

  it('show a read token no form, and refuse its close', async () => {
    const { html } = await page(reader, `/console/periods/${PERIOD}`);
    expect(parse(html).querySelector('main form')).toBeNull();
    const { csrf } = await page(reader, '/console/periods');
    const refused = await reader
      .post(`/console/periods/${PERIOD}/close`)
      .type('form')
      .send({ _csrf: csrf(), note: 'no' });
    expect(refused.status).toBe(403);
    const { rows } = await t.pool.query('select count(*)::int as n from period_versions');
    expect(rows[0].n).toBe(0);
  });

  it('close and reopen through the admin forms, a reopen without a note refused', async () => {
    const open = await page(admin, `/console/periods/${PERIOD}`);
    const form = parse(open.html).querySelector('main form');
    expect(form?.getAttribute('action')).toBe(`/console/periods/${PERIOD}/close`);
    const closed = await admin
      .post(`/console/periods/${PERIOD}/close`)
      .type('form')
      .send({ _csrf: open.csrf(), note: 'month reviewed' });
    expect(closed.status).toBe(303);
    expect(closed.headers.location).toBe(`/console/periods/${PERIOD}`);
    const after = await page(admin, `/console/periods/${PERIOD}`);
    expect(textOf(after.html)).toContain('version 1, closed');
    expect(textOf(after.html)).toContain('close version 1 by admin: month reviewed');
    expect(parse(after.html).querySelector('main form')?.getAttribute('action')).toBe(
      `/console/periods/${PERIOD}/reopen`,
    );
    const noNote = await admin
      .post(`/console/periods/${PERIOD}/reopen`)
      .type('form')
      .send({ _csrf: after.csrf(), note: '' });
    expect(noNote.status).toBe(422);
    expect(textOf(noNote.text)).toContain('note: required to reopen a period');
    const reopened = await admin
      .post(`/console/periods/${PERIOD}/reopen`)
      .type('form')
      .send({ _csrf: after.csrf(), note: 'a late refund' });
    expect(reopened.status).toBe(303);
    expect(cells((await page(admin, '/console/periods')).html).at(-1)?.[1]).toBe('open');
  });

  it('lists what was exported and, once an earlier version went out, offers the changes since it first', async () => {
    const form = async (action: 'close' | 'reopen', note: string) => {
      const { csrf } = await page(admin, `/console/periods/${PERIOD}`);
      const response = await admin
        .post(`/console/periods/${PERIOD}/${action}`)
        .type('form')
        .send({ _csrf: csrf(), note });
      expect(response.status).toBe(303);
    };
    await form('close', 'version 2');
    const closed = await page(admin, `/console/periods/${PERIOD}`);
    expect(parse(closed.html).querySelector('main p.changes')).toBeNull();
    expect((await admin.get(`/console/periods/${PERIOD}/journal?format=xero`)).status).toBe(200);
    await form('reopen', 'a late refund again');
    await form('close', 'version 3');
    const { html } = await page(admin, `/console/periods/${PERIOD}`);
    const links = parse(html)
      .querySelectorAll('main p a')
      .map((a) => a.getAttribute('href') as string);
    expect(links.slice(0, 4)).toEqual(
      ['csv', 'xero', 'quickbooks', 'netsuite'].map(
        (f) => `/console/periods/${PERIOD}/journal?format=${f}&changes_since=2`,
      ),
    );
    expect(textOf(html)).toContain("Version 2's journal was exported: import the changes since it");
    expect(parse(html).querySelector('main ol.exports')?.textContent).toContain(
      'version 2 journal, xero part 1 by admin',
    );
    for (const href of links.slice(0, 4)) expect((await admin.get(href)).status, href).toBe(200);
    expect((await page(admin, `/console/periods/${PERIOD}`)).html).toContain(
      'version 3 changes since version 2, csv',
    );
  });
});
