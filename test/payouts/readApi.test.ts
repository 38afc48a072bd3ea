import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { SCRIPT, seedPayouts } from './readSeed.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
let t: TestApp;
let bankLineId: number;

const get = (path: string) => request(t.app).get(path).set(auth);
const ids = (body: { data: { id: string }[] }) => body.data.map((payout) => payout.id);

beforeAll(async () => {
  t = await startTestApp();
  ({ bankLineId } = await seedPayouts(t.pool));
});
afterAll(() => t.close());

describe('GET /api/payouts', () => {
  it('lists payouts newest first with their lines, judgement, bank line and open findings', async () => {
    const response = await get('/api/payouts');
    expect(response.status).toBe(200);
    expect(response.body.type).toBe('array');
    expect(ids(response.body)).toEqual(['po_a2', 'po_a1', 'po_b1', 'po_a3', 'po_esc']);
    expect(response.body.data[1]).toEqual({
      id: 'po_a1',
      account_id: 'acc_a',
      amount: 13_710,
      currency: 'usd',
      status: 'paid',
      payout_type: 'cc',
      delivery_method: 'standard',
      description: 'payout po_a1',
      deposits_at: '2026-11-02T12:00:00.000Z',
      payments_count: 2,
      payments_total: 15_000,
      refunds_count: 1,
      refunds_total: 1_000,
      fees_total: 290,
      other_total: 0,
      bank_account: { last4: '6789' },
      metadata: { batch: 'b1' },
      created_at: '2026-11-02T08:00:00.000Z',
      updated_at: '2026-11-02T15:00:00.000Z',
      line_count: 6,
      lines_complete: true,
      judged: true,
      bank_line_id: bankLineId,
      open_findings: 1,
    });
    const byId = Object.fromEntries(response.body.data.map((p: { id: string }) => [p.id, p]));
    expect(byId.po_a2).toMatchObject({
      lines_complete: false,
      line_count: null,
      judged: false,
      bank_line_id: null,
      open_findings: 0,
    });
    expect(byId.po_a3).toMatchObject({
      status: 'failed',
      judged: true,
      bank_line_id: null,
      open_findings: 1,
    });
    expect(byId.po_b1).toMatchObject({
      currency: 'cad',
      amount: 4_200,
      judged: true,
      bank_line_id: null,
      open_findings: 1,
    });
    expect(byId.po_esc).toMatchObject({ description: SCRIPT, deposits_at: null, judged: false });
  });

  it('filters by status, account and deposit dates ([after, before), a day or a time)', async () => {
    expect(ids((await get('/api/payouts?status=paid')).body)).toEqual(['po_a1', 'po_b1', 'po_esc']);
    expect(ids((await get('/api/payouts?account_id=acc_b')).body)).toEqual(['po_b1']);
    expect(ids((await get('/api/payouts?status=paid&account_id=acc_a')).body)).toEqual(['po_a1']);
    expect(
      ids((await get('/api/payouts?deposits_after=2026-11-02&deposits_before=2026-11-03')).body),
    ).toEqual(['po_a1', 'po_b1', 'po_a3']);
    expect(ids((await get('/api/payouts?deposits_before=2026-11-02T12:00:00Z')).body)).toEqual(['po_a3']);
    expect(ids((await get('/api/payouts?deposits_after=2026-11-02T12:00:00%2B00:00')).body)).toEqual([
      'po_a2',
      'po_a1',
      'po_b1',
    ]);
    expect(ids((await get('/api/payouts?status=scheduled')).body)).toEqual([]);
  });

  it('pages with cursors both ways, keeping the order', async () => {
    const first = (await get('/api/payouts?limit=2')).body;
    expect(ids(first)).toEqual(['po_a2', 'po_a1']);
    expect(first.page_info).toMatchObject({ has_previous: false, has_next: true });
    const second = (await get(`/api/payouts?limit=2&after_cursor=${first.page_info.end_cursor}`)).body;
    expect(ids(second)).toEqual(['po_b1', 'po_a3']);
    expect(second.page_info).toMatchObject({ has_previous: true, has_next: true });
    const third = (await get(`/api/payouts?limit=2&after_cursor=${second.page_info.end_cursor}`)).body;
    expect(ids(third)).toEqual(['po_esc']);
    expect(third.page_info).toMatchObject({ has_previous: true, has_next: false });
    const back = (await get(`/api/payouts?limit=2&before_cursor=${third.page_info.start_cursor}`)).body;
    expect(ids(back)).toEqual(['po_b1', 'po_a3']);
    expect(back.page_info).toMatchObject({ has_previous: true, has_next: true });
    const filtered = (await get('/api/payouts?limit=1&status=paid')).body;
    const next = (await get(`/api/payouts?limit=1&status=paid&after_cursor=${filtered.page_info.end_cursor}`))
      .body;
    expect(ids(next)).toEqual(['po_b1']);
  });

  it.each([
    ['deposits_after=2026-13-01', 'invalid_parameter', 'deposits_after'],
    ['deposits_before=yesterday', 'invalid_parameter', 'deposits_before'],
    ['deposits_after=2026-11-02T10:00:00', 'invalid_parameter', 'deposits_after'],
    ['status=%01', 'invalid_parameter', 'status'],
    ['account_id=a&account_id=b', 'invalid_parameter', 'account_id'],
    [`account_id=${'x'.repeat(256)}`, 'invalid_parameter', 'account_id'],
    ['after_cursor=bm9wZQ', 'invalid_cursor', 'after_cursor'],
    ['before_cursor=%ff', 'invalid_parameter', 'before_cursor'],
  ])('?%s is 400 %s naming %s, without echoing the value', async (query, code, parameter) => {
    const response = await get(`/api/payouts?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(new RegExp(`^${parameter}: `));
    expect(response.body.error.message).not.toContain('yesterday');
  });

  it('needs a token: 401 without one', async () => {
    expect((await request(t.app).get('/api/payouts')).status).toBe(401);
    expect((await request(t.app).get('/api/payouts/po_a1')).status).toBe(401);
    expect((await request(t.app).get('/api/payouts/po_a1.csv')).status).toBe(401);
  });
});

describe('GET /api/payouts/:id', () => {
  it('shows the payout, its judgement, every line with its check and the object it matched, the bank line, findings', async () => {
    const response = await get('/api/payouts/po_a1');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'po_a1', type: 'payout', page_info: null });
    const payout = response.body.data;
    expect(payout).toMatchObject({
      id: 'po_a1',
      amount: 13_710,
      judged: true,
      bank_line_id: bankLineId,
      open_findings: 1,
    });
    expect(payout.reconciliation).toEqual({
      judged_at: '2026-11-02T13:00:00.000Z',
      lines_checked: 5,
      lines_mismatched: 1,
    });
    expect(payout.bank_line).toEqual({
      id: bankLineId,
      statement_id: expect.any(Number),
      bank_account: 'DE001',
      value_date: '2026-11-02',
      amount: 13_710,
      currency: 'usd',
      description: 'JUSTIFI <b>payout</b> "A&B"',
      reference: 'PO po_a1',
    });
    expect(payout.lines.map((line: { id: string }) => line.id)).toEqual([
      'bt_a1_1',
      'bt_a1_2',
      'bt_a1_3',
      'bt_a1_4',
      'bt_a1_5',
      'bt_a1_6',
    ]);
    expect(payout.lines[1]).toEqual({
      id: 'bt_a1_2',
      txn_type: 'processing_fee',
      kind: 'fee',
      amount: -320,
      fee: 0,
      net: -320,
      currency: 'usd',
      source_id: 'py_r1',
      source_type: 'payment',
      source_payment_id: 'py_r1',
      financial_transaction_id: 'ft_bt_a1_2',
      description: 'line bt_a1_2',
      available_on: '2026-11-02T01:02:00.000Z',
      created_at: '2026-11-02T01:02:00.000Z',
      updated_at: '2026-11-02T01:02:00.000Z',
      check: {
        status: 'mismatch',
        matched_type: 'payment_fee',
        matched_id: 'pyfee_r1',
        expected: -300,
        actual: -320,
        checked_at: '2026-11-02T13:00:00.000Z',
      },
      matched: {
        type: 'payment_fee',
        id: 'pyfee_r1',
        payment_id: 'py_r1',
        refund_id: null,
        fee_type: 'processing_fee',
        amount: 300,
        currency: 'usd',
        status: null,
      },
    });
    const matched = payout.lines.map((line: { matched: unknown }) => line.matched);
    expect(matched[0]).toEqual({
      type: 'payment',
      id: 'py_r1',
      payment_id: 'py_r1',
      refund_id: null,
      fee_type: null,
      amount: 10_000,
      currency: 'usd',
      status: 'succeeded',
    });
    expect(matched[3]).toEqual({
      type: 'refund',
      id: 're_r1',
      payment_id: 'py_r1',
      refund_id: 're_r1',
      fee_type: null,
      amount: 1_000,
      currency: 'usd',
      status: 'succeeded',
    });
    expect(matched[4]).toEqual({
      type: 'returned_fee',
      id: 'rfee_r1',
      payment_id: 'py_r1',
      refund_id: 're_r1',
      fee_type: 'processing_fee',
      amount: 30,
      currency: 'usd',
      status: 'succeeded',
    });
    expect(matched[5]).toBeNull();
    expect(payout.lines[5].check).toMatchObject({
      status: 'not_checked',
      matched_type: null,
      matched_id: null,
      expected: null,
      actual: null,
    });
    expect(payout.findings).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^fnd_\d+$/),
        code: 'payout_line_mismatch',
        severity: 'error',
        status: 'open',
        subject_type: 'balance_transaction',
        subject_id: 'bt_a1_2',
        expected: -300,
        actual: -320,
      }),
    ]);
  });

  it('shows an unjudged payout as such: no judgement, lines without a check', async () => {
    const payout = (await get('/api/payouts/po_a2')).body.data;
    expect(payout).toMatchObject({
      lines_complete: false,
      judged: false,
      reconciliation: null,
      bank_line: null,
      findings: [],
    });
    expect(payout.lines).toEqual([
      expect.objectContaining({
        id: 'bt_a2_1',
        amount: 5_000,
        fee: 145,
        net: 4_855,
        check: null,
        matched: null,
      }),
    ]);
  });

  it('answers 404 for an unknown payout, and 400 naming id for an id no payout can have', async () => {
    for (const path of ['/api/payouts/po_nope', '/api/payouts/po_nope.csv', '/api/payouts/.csv']) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.body.error).toEqual({
        code: 'resource_not_found',
        message: 'id: no payout with that id',
      });
    }
    for (const path of ['/api/payouts/%00', '/api/payouts/%ff', `/api/payouts/po_${'x'.repeat(253)}`]) {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/^id: /);
    }
  });
});

describe('GET /api/payouts/:id.csv', () => {
  it('is one row per line with the statement columns, amounts in cents and as decimals', async () => {
    const response = await get('/api/payouts/po_a1.csv');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename=payout-po_a1.csv');
    const lines = response.text.split('\r\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe(
      'payout_id,account_id,payout_status,deposits_at,line_id,created_at,available_on,txn_type,kind,source_type,' +
        'source_id,source_payment_id,financial_transaction_id,description,currency,amount_cents,amount,fee_cents,fee,' +
        'net_cents,net,check_status,matched_type,matched_id,expected_cents,expected,actual_cents,actual',
    );
    const prefix = 'po_a1,acc_a,paid,2026-11-02T12:00:00.000Z';
    expect(lines[1]).toBe(
      `${prefix},bt_a1_1,2026-11-02T01:01:00.000Z,2026-11-02T01:01:00.000Z,seller_payment,payment,payment,py_r1,py_r1,ft_bt_a1_1,line bt_a1_1,usd,10000,100.00,0,0.00,10000,100.00,ok,payment,py_r1,10000,100.00,10000,100.00`,
    );
    expect(lines[2]).toBe(
      `${prefix},bt_a1_2,2026-11-02T01:02:00.000Z,2026-11-02T01:02:00.000Z,processing_fee,fee,payment,py_r1,py_r1,ft_bt_a1_2,line bt_a1_2,usd,-320,-3.20,0,0.00,-320,-3.20,mismatch,payment_fee,pyfee_r1,-300,-3.00,-320,-3.20`,
    );
    expect(lines[6]).toBe(
      `${prefix},bt_a1_6,2026-11-02T01:06:00.000Z,2026-11-02T01:06:00.000Z,payout,payout,payout,po_a1,,ft_bt_a1_6,line bt_a1_6,usd,-13710,-137.10,0,0.00,-13710,-137.10,not_checked,,,,,,`,
    );
    expect(lines[7]).toBe('');
  });

  it('quotes and defuses text a spreadsheet would run, through the report CSV writer', async () => {
    const response = await get('/api/payouts/po_a2.csv');
    const [, row] = response.text.split('\r\n');
    expect(row).toContain(',line bt_a2_1,usd,5000,50.00,145,1.45,4855,48.55,,,,,,,');
    await t.pool.query(`update payout_lines set description = '=HYPERLINK("x"), 1' where id = 'bt_a2_1'`);
    const quoted = (await get('/api/payouts/po_a2.csv')).text.split('\r\n')[1];
    expect(quoted).toContain(`,"'=HYPERLINK(""x""), 1",usd,`);
  });
});

describe('GET /api/status', () => {
  it('gives the last payout sync, the payments awaiting a payout and the paid payouts missing in the bank', async () => {
    const status = (await get('/api/status')).body.data;
    expect(status.last_payout_sync_at).toBe('2026-11-02T16:30:00.000Z');
    expect(status.payments_awaiting_payout).toBe(2);
    expect(status.payouts_unmatched_in_bank).toBe(1);
  });
});

describe('open findings of a payout', () => {
  it('counts acknowledged findings as open and leaves accepted ones out', async () => {
    const finding = (await get('/api/payouts/po_a3')).body.data.findings[0];
    expect(finding).toMatchObject({ code: 'payout_failed', subject_id: 'po_a3', status: 'open' });
    const change = (action: string, body: object = {}) =>
      request(t.app).post(`/api/findings/${finding.id}/${action}`).set(auth).send(body);
    expect((await change('acknowledge')).status).toBe(200);
    expect((await get('/api/payouts/po_a3')).body.data.open_findings).toBe(1);
    expect((await change('accept', { note: 'the bank account was closed; paid by hand' })).status).toBe(200);
    const payout = (await get('/api/payouts/po_a3')).body.data;
    expect(payout.open_findings).toBe(0);
    expect(payout.findings).toEqual([expect.objectContaining({ id: finding.id, status: 'accepted' })]);
    expect(ids((await get('/api/payouts?status=failed')).body)).toEqual(['po_a3']);
    expect((await get('/api/payouts?status=failed')).body.data[0].open_findings).toBe(0);
  });
});
