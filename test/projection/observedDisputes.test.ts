import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { OBSERVED_ACCOUNT as ACCOUNT, startObservedApp } from '../helpers/observed.ts';

// Disputes as the provider sends them (docs/webhooks.md, "What Tally accepts"): projection, findings, list API, daily report.
let observed: Awaited<ReturnType<typeof startObservedApp>>;
let t: TestApp;
let auth: Record<string, string>;

beforeAll(async () => {
  observed = await startObservedApp();
  ({ t, auth } = observed);
});
afterAll(() => observed.close());

describe('disputes', () => {
  it('projects disputes, links them from the payment, and resolves dispute_open once won', async () => {
    const won = await t.pool.query(`select code, status from findings where subject_id = 'dp_obs_won'`);
    expect(won.rows).toEqual([{ code: 'dispute_open', status: 'open' }]);
    const closed = paymentEvent({
      account_id: ACCOUNT,
      event_name: 'payment.dispute.closed',
      data: {
        id: 'dp_obs_won',
        payment_id: 'py_obs_disputed',
        amount: 10000,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'won',
        created_at: '2026-11-03T09:00:00Z',
        updated_at: '2026-11-10T09:00:00Z',
      },
    });
    await deliver(t.app, [JSON.stringify(closed)]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select id, payment_id, amount, currency, reason, to_char(due_date, 'YYYY-MM-DD') as due_date, status
         from disputes order by id`,
    );
    expect(rows).toEqual([
      {
        id: 'dp_obs_forfeit',
        payment_id: 'py_obs_disputed',
        amount: 1300,
        currency: 'usd',
        reason: 'duplicate',
        due_date: '2026-11-20',
        status: 'forfeited',
      },
      {
        id: 'dp_obs_lost',
        payment_id: 'py_obs_lost_payment',
        amount: 4200,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'lost',
      },
      {
        id: 'dp_obs_open',
        payment_id: 'py_obs_disputed',
        amount: 2500,
        currency: 'usd',
        reason: 'product_not_received',
        due_date: '2026-11-20',
        status: 'needs_response',
      },
      {
        id: 'dp_obs_won',
        payment_id: 'py_obs_disputed',
        amount: 10000,
        currency: 'usd',
        reason: 'fraudulent',
        due_date: '2026-11-20',
        status: 'won',
      },
    ]);
    const detail = await request(t.app).get('/api/payments/py_obs_disputed').set(auth);
    expect(detail.status).toBe(200);
    expect(detail.body.data.disputes.map((item: { id: string }) => item.id).sort()).toEqual([
      'dp_obs_forfeit',
      'dp_obs_open',
      'dp_obs_won',
    ]);
    const resolved = await t.pool.query(`select code, status from findings where subject_id = 'dp_obs_won'`);
    expect(resolved.rows).toEqual([{ code: 'dispute_open', status: 'resolved' }]);
    const open = await t.pool.query(`select details from findings where subject_id = 'dp_obs_open'`);
    expect(open.rows[0].details).toMatchObject({
      amount: 2500,
      reason: 'product_not_received',
      due_date: '2026-11-20',
    });
  });

  it('lists disputes with filters and cursor pagination', async () => {
    const page = async (query: string) => {
      const response = await request(t.app).get(`/api/disputes?${query}`).set(auth);
      expect(response.status).toBe(200);
      return response.body;
    };
    const lost = await page('status=lost');
    expect(lost.data).toEqual([
      expect.objectContaining({
        id: 'dp_obs_lost',
        payment_id: 'py_obs_lost_payment',
        account_id: ACCOUNT,
        amount: 4200,
        currency: 'usd',
        due_date: '2026-11-20',
        status: 'lost',
      }),
    ]);
    const first = await page(`account_id=${ACCOUNT}&limit=2`);
    expect(first.data).toHaveLength(2);
    expect(first.page_info.has_next).toBe(true);
    const second = await page(`account_id=${ACCOUNT}&limit=2&after_cursor=${first.page_info.end_cursor}`);
    const all = [...first.data, ...second.data].map((item: { id: string }) => item.id).sort();
    expect(all).toEqual(['dp_obs_forfeit', 'dp_obs_lost', 'dp_obs_open', 'dp_obs_won']);
    expect((await page('account_id=acc_nobody')).data).toEqual([]);
    const bad = await request(t.app).get('/api/disputes?status=%00').set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^status:/);
  });

  it('a dispute closed before it was opened still ends closed, whatever the delivery order', async () => {
    const event = (name: string, status: string, updatedAt: string) =>
      JSON.stringify(
        paymentEvent({
          account_id: ACCOUNT,
          event_name: name,
          data: {
            id: 'dp_obs_reordered',
            payment_id: 'py_obs_disputed',
            amount: 700,
            currency: 'usd',
            status,
            updated_at: updatedAt,
          },
        }),
      );
    await deliver(t.app, [
      event('payment.dispute.closed', 'lost', '2026-11-09T00:00:00Z'),
      event('payment.dispute.created', 'needs_response', '2026-11-03T00:00:00Z'),
    ]);
    await settle(t);
    const { rows } = await t.pool.query(
      `select d.status, f.code, f.status as finding_status from disputes d
         join findings f on f.subject_id = d.id where d.id = 'dp_obs_reordered'`,
    );
    expect(rows).toEqual([{ status: 'lost', code: 'dispute_lost', finding_status: 'open' }]);
  });

  it('the daily report counts disputes, ACH returns by catalogue code, and fees handed back by reason', async () => {
    const reportOf = async (date: string) => {
      await observed.runJob('daily-report', { date });
      const { rows } = await t.pool.query(
        `select body from reports where period = $1 order by id desc limit 1`,
        [date],
      );
      return rows[0].body;
    };
    const row = { account_type: 'test', account_id: ACCOUNT, currency: 'usd' };
    const opened = await reportOf('2026-11-03');
    expect(opened.disputes).toEqual([
      {
        ...row,
        opened: 4,
        opened_amount: 18000,
        won: 0,
        won_amount: 0,
        lost: 0,
        lost_amount: 0,
        other: 0,
        other_amount: 0,
        open: 1,
        at_risk: 2500,
      },
    ]);
    const returned = await reportOf('2026-11-05');
    expect(returned.ach_returns).toEqual(
      ['ACCOUNT_CLOSED', 'ACCOUNT_FROZEN', 'BANK_ACCOUNT_RESTRICTED', 'NO_ACCOUNT'].map((code) => ({
        account_type: 'test',
        currency: 'usd',
        code,
        category: 'account_problem',
        retryable: false,
        late: false,
        returns: 1,
        amount: 10000,
      })),
    );
    // Four ACH returns hand back 80 ¢ processing and 50 ¢ platform each.
    expect(returned.returned_fees_by_reason).toEqual([
      { ...row, refund: 0, ach_return: 520, void: 0, total: 520 },
    ]);
    const voided = await reportOf('2026-11-02');
    expect(voided.returned_fees_by_reason).toEqual([
      { ...row, refund: 0, ach_return: 0, void: 355, total: 355 },
    ]);
  });
});
