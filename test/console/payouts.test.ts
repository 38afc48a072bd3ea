import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { ESCAPED_ACCOUNT, SCRIPT, seedPayouts } from '../payouts/readSeed.ts';
import { page, signIn, textOf } from './signIn.ts';

let t: TestApp;
let agent: Awaited<ReturnType<typeof signIn>>;
let bankLineId: number;

beforeAll(async () => {
  t = await startTestApp();
  ({ bankLineId } = await seedPayouts(t.pool));
  agent = await signIn(t, API_TOKEN);
});
afterAll(() => t.close());

// A cell's second line (the account under a payout's id) is read as a cell of its own.
const cells = (html: string) =>
  parse(html)
    .querySelectorAll('main tbody tr')
    .map((row) =>
      row.querySelectorAll('td').flatMap((td) => {
        const sub = td.querySelector('.sub');
        sub?.remove();
        return sub ? [td.textContent.trim(), sub.textContent.trim()] : [td.textContent.trim()];
      }),
    );

describe('the console payouts list', () => {
  it('is in the navigation and lists every payout newest first, values escaped', async () => {
    const { response, html } = await page(agent, '/console/payouts');
    expect(response.status).toBe(200);
    const nav = parse(html).querySelector('nav a[href="/console/payouts"]');
    expect(nav?.textContent).toBe('Payouts');
    expect(nav?.getAttribute('aria-current')).toBe('page');
    const rows = cells(html);
    expect(rows.map((row) => row[0])).toEqual(['po_a2', 'po_a1', 'po_b1', 'po_a3', 'po_esc']);
    expect(rows[1]).toEqual([
      'po_a1',
      'acc_a',
      'paid',
      '$137.10',
      '2026-11-02 12:00:00',
      '2026-11-02 08:00:00',
      'all loaded (6)',
      'yes',
      `bank line ${bankLineId}`,
      '1',
    ]);
    expect(rows[0]?.slice(6, 10)).toEqual(['loading', 'not yet', '—', '0']);
    expect(rows[4]?.[1]).toBe(ESCAPED_ACCOUNT);
    expect(html).not.toContain('<i>esc</i>');
    expect(html).toContain('acc_&lt;i&gt;esc&lt;/i&gt;');
  });

  it('filters by status, account and deposit dates, and keeps the filter in the form', async () => {
    const { html } = await page(
      agent,
      '/console/payouts?status=paid&deposits_after=2026-11-02&deposits_before=2026-11-03',
    );
    expect(cells(html).map((row) => row[0])).toEqual(['po_a1', 'po_b1']);
    const form = parse(html).querySelector('form.filters');
    expect(form?.querySelector('option[selected]')?.textContent).toBe('paid');
    expect(form?.querySelector('input[name="deposits_after"]')?.getAttribute('value')).toBe('2026-11-02');
    expect(form?.querySelector('input[name="deposits_before"]')?.getAttribute('value')).toBe('2026-11-03');
    expect(cells((await page(agent, '/console/payouts?account_id=acc_b')).html).map((row) => row[0])).toEqual(
      ['po_b1'],
    );
  });

  it('pages with links that keep the filter', async () => {
    const first = await page(agent, '/console/payouts?status=paid&limit=2');
    expect(cells(first.html).map((row) => row[0])).toEqual(['po_a1', 'po_b1']);
    const older = parse(first.html).querySelector('nav.pager a')?.getAttribute('href') as string;
    expect(older).toMatch(/^\/console\/payouts\?status=paid&limit=2&after_cursor=/);
    const second = await page(agent, older);
    expect(cells(second.html).map((row) => row[0])).toEqual(['po_esc']);
    expect(parse(second.html).querySelector('nav.pager a')?.textContent).toBe('← Newer');
  });

  it('refuses a bad filter with a page naming the parameter', async () => {
    const { response, html } = await page(agent, '/console/payouts?deposits_after=someday');
    expect(response.status).toBe(400);
    expect(textOf(html)).toContain('deposits_after: ');
    expect(textOf(html)).not.toContain('someday');
  });
});

describe('the console payout page', () => {
  it('shows the payout, its judgement, its bank line, each line with its check and what it matched', async () => {
    const { response, html } = await page(agent, '/console/payouts/po_a1');
    expect(response.status).toBe(200);
    const text = textOf(html);
    expect(text).toContain('Payout po_a1');
    expect(text).toContain('2026-11-02 13:00:00: 5 lines checked, 1 mismatched');
    expect(text).toContain(`Bank line ${bankLineId} of statement`);
    expect(text).toContain(
      '$137.10 on 2026-11-02, account DE001, reference PO po_a1, JUSTIFI <b>payout</b> "A&B"',
    );
    expect(html).not.toContain('<b>payout</b>');
    const rows = cells(html);
    expect(rows).toHaveLength(6);
    expect(rows[1]).toEqual([
      'bt_a1_2',
      'processing_fee fee',
      '2026-11-02 01:02:00',
      '-$3.20',
      '$0.00',
      '-$3.20',
      'mismatch',
      '-$3.00',
      '-$3.20',
      'payment_fee pyfee_r1 (processing_fee): $3.00 · payment py_r1',
    ]);
    expect(rows[3]?.[9]).toBe('refund re_r1: $10.00, succeeded · payment py_r1');
    expect(rows[5]?.slice(6)).toEqual(['not_checked', '—', '—', '—']);
    const paymentLink = parse(html).querySelector('main tbody tr td:last-child a');
    expect(paymentLink?.getAttribute('href')).toBe('/console/payments/py_r1');
    const finding = parse(html).querySelector('main ul li a');
    expect(finding?.getAttribute('href')).toMatch(/^\/console\/findings\/fnd_\d+$/);
    expect(finding?.parentNode?.textContent).toContain('payout_line_mismatch on bt_a1_2');
  });

  it('shows an unjudged payout as such, and escapes its description', async () => {
    const text = textOf((await page(agent, '/console/payouts/po_a2')).html);
    expect(text).toContain('1 loaded (not all loaded yet)');
    expect(text).toContain('not yet (a payout is judged once all its lines are loaded)');
    expect(text).toContain('No bank statement credit matched.');
    expect(text).toContain('not checked yet');
    expect(text).toContain('nothing matched (payment py_unknown)');
    const escaped = await page(agent, '/console/payouts/po_esc');
    expect(escaped.html).not.toContain(SCRIPT);
    expect(escaped.html).toContain('&lt;script&gt;');
    expect(textOf(escaped.html)).toContain(SCRIPT);
  });

  it('downloads the lines as CSV with the session, and answers 404 for an unknown payout', async () => {
    const csv = await agent.get('/console/payouts/po_a1.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text.split('\r\n')[1]).toMatch(/^po_a1,acc_a,paid,.*,bt_a1_1,/);
    const missing = await page(agent, '/console/payouts/po_nope');
    expect(missing.response.status).toBe(404);
    expect(textOf(missing.html)).toContain('No payout with that id.');
  });
});

describe('the console payment page', () => {
  it('shows the payout lines that name the payment, linked to their payout', async () => {
    const { html } = await page(agent, '/console/payments/py_r1');
    const heading = parse(html)
      .querySelectorAll('main h2')
      .find((h2) => h2.textContent === 'Payouts');
    const table = heading?.nextElementSibling;
    const rows = table
      ?.querySelectorAll('tbody tr')
      .map((row) => row.querySelectorAll('td').map((td) => td.textContent.trim()));
    expect(rows).toEqual([
      [
        'po_a1',
        'paid',
        '2026-11-02 12:00:00',
        'bt_a1_1 payment',
        '$100.00',
        '$100.00',
        'ok',
        `bank line ${bankLineId}`,
      ],
      [
        'po_a1',
        'paid',
        '2026-11-02 12:00:00',
        'bt_a1_2 fee',
        '-$3.20',
        '-$3.20',
        'mismatch',
        `bank line ${bankLineId}`,
      ],
      [
        'po_a1',
        'paid',
        '2026-11-02 12:00:00',
        'bt_a1_4 refund',
        '-$10.00',
        '-$10.00',
        'ok',
        `bank line ${bankLineId}`,
      ],
      [
        'po_a1',
        'paid',
        '2026-11-02 12:00:00',
        'bt_a1_5 fee_return',
        '$0.30',
        '$0.30',
        'ok',
        `bank line ${bankLineId}`,
      ],
    ]);
    expect(table?.querySelector('a')?.getAttribute('href')).toBe('/console/payouts/po_a1');
    const waiting = textOf((await page(agent, '/console/payments/py_wait')).html);
    expect(waiting).toContain('No payout line names this payment.');
  });
});
