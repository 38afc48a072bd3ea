import { parse } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDailyReport } from '../../src/reports/buildDailyReport.ts';
import { renderCsv } from '../../src/reports/renderCsv.ts';
import { renderHtml } from '../../src/reports/renderHtml.ts';
import { page, signIn, textOf } from '../console/signIn.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { attempt, DO_NOT_RETRY, RETRY_LATER } from './declineDeliveries.ts';

// The read side of declines: GET /api/declines, the daily report's section, the console pages.
const HOSTILE = `<script>alert("x")</script><img src=x onerror='alert(1)'> <%= it.csrfToken %>`;

let t: TestApp;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  // One at a time, so the projection sees them (and the list orders them) in this order.
  for (const body of [
    attempt({
      id: 'py_rs_5',
      at: '2026-11-19T23:00:00Z',
      amount: 500,
      card: { id: 'pm_rs_5' },
      decline: RETRY_LATER,
    }),
    attempt({
      id: 'py_rs_1',
      at: '2026-11-20T01:00:00Z',
      amount: 1000,
      card: { id: 'pm_rs_1' },
      decline: RETRY_LATER,
    }),
    attempt({
      id: 'py_rs_2',
      at: '2026-11-20T02:00:00Z',
      amount: 2000,
      card: { id: 'pm_rs_2' },
      decline: DO_NOT_RETRY,
    }),
    attempt({
      id: 'py_rs_3',
      account: 'acc_rs_2',
      at: '2026-11-20T03:00:00Z',
      amount: 3000,
      card: { id: 'pm_rs_3' },
      decline: {
        error_code: 'card_declined',
        decline_code: 'expired_card',
        network: 'Visa',
        network_error_code: '101',
      },
    }),
    attempt({
      id: 'py_rs_4',
      at: '2026-11-20T04:00:00Z',
      amount: 4000,
      card: { id: 'pm_rs_4' },
      decline: { error_code: 'card_declined', decline_code: HOSTILE, network: 'VISA' },
    }),
    attempt({ id: 'py_rs_ok', at: '2026-11-20T05:00:00Z', amount: 9999, card: { id: 'pm_rs_ok' } }),
  ]) {
    await deliver(t.app, [body]);
    await settle(t);
  }
});
afterAll(() => t.close());

const get = (path: string) => request(t.app).get(path).set(auth);
const ids = async (query: string) => {
  const response = await get(`/api/declines${query}`);
  expect(response.status).toBe(200);
  return (response.body.data as { id: string }[]).map((decline) => decline.id);
};

describe('GET /api/declines', () => {
  it('lists failed card payments newest first, each with its codes, their meanings and the advice', async () => {
    const response = await get('/api/declines');
    expect(response.status).toBe(200);
    expect(response.body.data.map((d: { id: string }) => d.id)).toEqual([
      'py_rs_4',
      'py_rs_3',
      'py_rs_2',
      'py_rs_1',
      'py_rs_5',
    ]);
    expect(response.body.data[2]).toEqual({
      id: 'py_rs_2',
      payment_id: 'py_rs_2',
      account_id: 'acc_decl_1',
      amount: 2000,
      currency: 'usd',
      card_brand: 'visa',
      card_last_four: '4242',
      payment_method_id: 'pm_rs_2',
      error_code: 'card_declined',
      decline_code: 'do_not_retry',
      decline_meaning: 'Rejected. Do not retry.',
      network: 'MASTERCARD',
      network_error_code: '504',
      network_error_meaning: 'Do not try again',
      network_error_category: '03',
      network_error_category_meaning: 'Do not try again',
      advice: 'do_not_retry',
      advice_in_words: 'Do not charge this card again: the issuer will never approve it.',
      scope: null,
      scope_in_words: null,
      declined_at: '2026-11-20T02:00:00.000Z',
    });
    expect(response.body).toMatchObject({
      id: null,
      type: 'array',
      page_info: { has_next: false, has_previous: false },
    });
  });

  it('filters by advice, network (any case), account and since', async () => {
    expect(await ids('?advice=do_not_retry')).toEqual(['py_rs_2']);
    expect(await ids('?advice=unknown')).toEqual(['py_rs_4']);
    expect(await ids('?network=visa')).toEqual(['py_rs_4', 'py_rs_3', 'py_rs_1', 'py_rs_5']);
    expect(await ids('?account_id=acc_rs_2')).toEqual(['py_rs_3']);
    expect(await ids('?since=2026-11-20')).toEqual(['py_rs_4', 'py_rs_3', 'py_rs_2', 'py_rs_1']);
    expect(await ids('?since=2026-11-20T03:30:00%2B01:00')).toEqual(['py_rs_4', 'py_rs_3']);
    expect(await ids('?network=VISA&advice=retry_later&since=2026-11-20')).toEqual(['py_rs_1']);
  });

  it('pages with the provider’s cursors', async () => {
    const first = await get('/api/declines?limit=2');
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual(['py_rs_4', 'py_rs_3']);
    expect(first.body.page_info).toMatchObject({ has_next: true, has_previous: false });
    const second = await get(`/api/declines?limit=2&after_cursor=${first.body.page_info.end_cursor}`);
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual(['py_rs_2', 'py_rs_1']);
    expect(second.body.page_info).toMatchObject({ has_next: true, has_previous: true });
  });

  it.each([
    ['advice=never', 'invalid_parameter', 'advice'],
    ['since=yesterday', 'invalid_parameter', 'since'],
    ['since=2026-02-30', 'invalid_parameter', 'since'],
    ['since=2026-11-20T10:00:00', 'invalid_parameter', 'since'],
    ['account_id=%00', 'invalid_parameter', 'account_id'],
    ['network=a&network=b', 'invalid_parameter', 'network'],
    ['after_cursor=garbage', 'invalid_cursor', 'after_cursor'],
  ])('?%s is 400 %s naming %s', async (query, code, parameter) => {
    const response = await get(`/api/declines?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toContain(parameter);
    expect(response.text).not.toContain('yesterday');
  });

  it('counts a decline code no table knows in unknown_values, verbatim', async () => {
    const { rows } = await t.pool.query(
      `select field, value, deliveries from unknown_values where field like 'payment.%' order by field, value`,
    );
    expect(rows).toEqual([{ field: 'payment.decline_code', value: HOSTILE, deliveries: 1 }]);
  });

  it('needs the API token', async () => {
    expect((await request(t.app).get('/api/declines')).status).toBe(401);
  });
});

describe('the daily report’s declines section', () => {
  it('counts the day’s declines per account, currency and network, by advice and by code, in JSON, CSV and HTML', async () => {
    const report = await buildDailyReport(t.pool, '2026-11-20', new Date('2026-11-21T06:00:00Z'), 'UTC');
    const none = {
      do_not_retry: 0,
      retry_later: 0,
      retry_with_new_details: 0,
      stop_recurring: 0,
      unknown: 0,
    };
    expect(report.declines).toEqual([
      {
        account_type: 'test',
        account_id: 'acc_decl_1',
        currency: 'usd',
        network: 'MASTERCARD',
        declines: 1,
        amount: 2000,
        by_advice: { ...none, do_not_retry: 1 },
        by_code: { do_not_retry: 1 },
      },
      {
        account_type: 'test',
        account_id: 'acc_decl_1',
        currency: 'usd',
        network: 'VISA',
        declines: 2,
        amount: 5000,
        by_advice: { ...none, retry_later: 1, unknown: 1 },
        by_code: { [HOSTILE]: 1, insufficient_funds: 1 },
      },
      {
        account_type: 'test',
        account_id: 'acc_rs_2',
        currency: 'usd',
        network: 'VISA',
        declines: 1,
        amount: 3000,
        by_advice: { ...none, retry_with_new_details: 1 },
        by_code: { expired_card: 1 },
      },
    ]);
    const csv = [...renderCsv(report)].join('');
    const section = csv.slice(csv.indexOf('section,declines\r\n')).split('\r\n\r\n')[0]?.split('\r\n');
    expect(section).toEqual([
      'section,declines',
      'account_type,account_id,currency,network,declines,amount_cents,amount,do_not_retry,retry_later,retry_with_new_details,stop_recurring,unknown,by_code',
      'test,acc_decl_1,usd,MASTERCARD,1,2000,20.00,1,0,0,0,0,do_not_retry: 1',
      `test,acc_decl_1,usd,VISA,2,5000,50.00,0,1,0,0,1,"${HOSTILE.replaceAll('"', '""')}: 1; insufficient_funds: 1"`,
      'test,acc_rs_2,usd,VISA,1,3000,30.00,0,0,1,0,0,expired_card: 1',
    ]);
    const html = parse(renderHtml(report, 'rpt_1'));
    expect(html.querySelectorAll('script')).toHaveLength(0);
    expect(html.textContent).toContain('Card declines per account, currency and network');
    expect(html.textContent).toContain(`${HOSTILE}: 1; insufficient_funds: 1`);
  });
});

describe('the console', () => {
  it('lists declines with the API’s filters, meanings and advice in words, every value escaped', async () => {
    const agent = await signIn(t, API_TOKEN);
    const { response, html } = await page(agent, '/console/declines?network=visa&since=2026-11-20');
    expect(response.status).toBe(200);
    const root = parse(html);
    expect(root.querySelector('nav a[href="/console/declines"]')?.getAttribute('aria-current')).toBe('page');
    expect(
      root.querySelectorAll('main tbody tr').map((row) => row.querySelector('td a')?.textContent),
    ).toEqual(['py_rs_4', 'py_rs_3', 'py_rs_1']);
    expect(root.querySelectorAll('main script, main img')).toHaveLength(0);
    const text = textOf(html);
    expect(text).toContain(HOSTILE);
    expect(text).toContain('Card expired');
    expect(text).toContain('Do not retry with the same details: ask the customer for updated card details.');
    expect(root.querySelector('input[name="since"]')?.getAttribute('value')).toBe('2026-11-20');
    expect((await page(agent, '/console/declines?advice=never')).response.status).toBe(400);
  });

  it('shows a payment’s decline, its meanings and the advice in words, on the payment page', async () => {
    const agent = await signIn(t, API_TOKEN);
    const declined = textOf((await page(agent, '/console/payments/py_rs_2')).html);
    expect(declined).toContain('Decline');
    expect(declined).toContain('do_not_retry: Rejected. Do not retry.');
    expect(declined).toContain('504: Do not try again');
    expect(declined).toContain('Do not charge this card again: the issuer will never approve it.');
    const hostile = await page(agent, '/console/payments/py_rs_4');
    expect(parse(hostile.html).querySelectorAll('main script, main img')).toHaveLength(0);
    expect(textOf(hostile.html)).toContain('No advice: the decline carries no code Tally knows.');
    const succeeded = parse((await page(agent, '/console/payments/py_rs_ok')).html);
    expect(succeeded.querySelectorAll('h2').map((h) => h.textContent)).not.toContain('Decline');
  });
});
