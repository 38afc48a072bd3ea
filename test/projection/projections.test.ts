import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { deliver, drain, fixtureBodies, fixtureNames } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';

const at = (minute: number) =>
  new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString().replace('.000Z', '+00:00');
const allBodies = () => fixtureNames().flatMap(fixtureBodies);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ worker: true });
  await deliver(t.app, allBodies());
  await drain(t);
});
afterAll(() => t.close());

const one = async (sql: string, params: unknown[] = []) => (await t.pool.query(sql, params)).rows[0];

describe('every recorded fixture, replayed through POST /webhooks and the worker', () => {
  it('leaves every delivery processed', async () => {
    const rows = (await t.pool.query('select status, count(*)::int as n from events group by status')).rows;
    expect(rows).toEqual([{ status: 'processed', n: allBodies().length }]);
  });

  it('projects the card payment at its newest snapshot, with its fees and its refund', async () => {
    const payment = await one(
      `select status, amount, currency, fee_amount, amount_refunded, method_kind, payment_mode, card_brand,
              payment_method_id, to_jsonb(succeeded_at) as succeeded_at, to_jsonb(captured_at) as captured_at,
              authorized_at, failed_at from payments where id = 'py_card_1'`,
    );
    expect(payment).toEqual({
      status: 'partially_refunded',
      amount: 1234,
      currency: 'usd',
      fee_amount: 59,
      amount_refunded: 500,
      method_kind: 'card',
      payment_mode: 'ecom',
      card_brand: 'visa',
      payment_method_id: 'pm_card_1',
      succeeded_at: at(1),
      captured_at: at(1),
      authorized_at: null,
      failed_at: null,
    });
    const fees = (
      await t.pool.query(
        `select id, type, amount, remaining_amount, source_configuration_id, source_fee_type from payment_fees where payment_id = 'py_card_1' order by id`,
      )
    ).rows;
    expect(fees).toEqual([
      {
        id: 'pyfee_card_plat',
        type: 'platform_fee',
        amount: 25,
        remaining_amount: 25,
        source_configuration_id: null,
        source_fee_type: null,
      },
      {
        id: 'pyfee_card_proc',
        type: 'processing_fee',
        amount: 34,
        remaining_amount: 20,
        source_configuration_id: 'sfc_visa_1',
        source_fee_type: 'visa_brand_ecomm',
      },
    ]);
    expect(
      await one(`select payment_id, amount, status, reason from refunds where id = 're_card_1'`),
    ).toEqual({
      payment_id: 'py_card_1',
      amount: 500,
      status: 'succeeded',
      reason: 'customer_request',
    });
    expect(
      await one(
        `select refund_id, payment_fee_id, returned_amount, original_amount, remaining_amount from returned_fees`,
      ),
    ).toEqual({
      refund_id: 're_card_1',
      payment_fee_id: 'pyfee_card_proc',
      returned_amount: 14,
      original_amount: 34,
      remaining_amount: 20,
    });
  });

  it('keeps both facts of a late ACH return: it succeeded, then failed', async () => {
    const payment = await one(
      `select status, method_kind, error_description, to_jsonb(succeeded_at) as succeeded_at,
              to_jsonb(failed_at) as failed_at from payments where id = 'py_ach_1'`,
    );
    expect(payment).toEqual({
      status: 'failed',
      method_kind: 'ach',
      error_description: 'INSUFFICIENT_FUNDS',
      succeeded_at: at(6),
      failed_at: at(35),
    });
  });

  it('records authorization, capture and cancellation times of manual-capture payments', async () => {
    const rows = (
      await t.pool.query(
        `select id, status, to_jsonb(authorized_at) as authorized_at, to_jsonb(captured_at) as captured_at,
              to_jsonb(canceled_at) as canceled_at from payments where capture_strategy = 'manual' order by id`,
      )
    ).rows;
    expect(rows).toEqual([
      {
        id: 'py_manual_1',
        status: 'succeeded',
        authorized_at: at(10),
        captured_at: at(30),
        canceled_at: null,
      },
      {
        id: 'py_manual_2',
        status: 'canceled',
        authorized_at: at(11),
        captured_at: null,
        canceled_at: at(31),
      },
    ]);
  });

  it('projects checkouts with the fees set on them and their payment', async () => {
    const rows = (
      await t.pool.query(`select id, status, amount, fees, payment_id from checkouts order by id`)
    ).rows;
    expect(rows).toEqual([
      {
        id: 'cho_1',
        status: 'completed',
        amount: 2000,
        fees: [{ type: 'platform_fee', amount: 100 }],
        payment_id: 'py_checkout_1',
      },
      { id: 'cho_2', status: 'attempted', amount: null, fees: null, payment_id: null },
    ]);
  });

  it('projects forwarding requests and records each outcome', async () => {
    const requests = (
      await t.pool.query(
        `select id, status, failure_reason, response_status_code, response_time_ms, url from forwarding_requests order by id`,
      )
    ).rows;
    expect(requests).toEqual([
      {
        id: 'fwd_1',
        status: 'completed',
        failure_reason: null,
        response_status_code: 402,
        response_time_ms: 180,
        url: 'https://vault.example.com/charge',
      },
      {
        id: 'fwd_2',
        status: 'failed',
        failure_reason: 'timeout',
        response_status_code: null,
        response_time_ms: null,
        url: 'https://vault.example.com/charge',
      },
    ]);
    const outcomes = (
      await t.pool.query(`select forwarding_request_id, status from forwarding_outcomes order by 1`)
    ).rows;
    expect(outcomes).toEqual([
      { forwarding_request_id: 'fwd_1', status: 'completed' },
      { forwarding_request_id: 'fwd_2', status: 'failed' },
    ]);
  });

  it('GET /api/payments/:id returns the payment with fees, refunds and returned fees, and forwarding requests', async () => {
    const response = await request(t.app)
      .get('/api/payments/py_card_1')
      .set('Authorization', `Bearer ${API_TOKEN}`);
    expect(response.body.error).toBeUndefined();
    expect(response.body.type).toBe('payment');
    const data = response.body.data;
    expect(data).toMatchObject({ id: 'py_card_1', status: 'partially_refunded', amount: 1234 });
    expect(data.snapshot).toBeUndefined();
    expect(data.fees.map((fee: { id: string }) => fee.id)).toEqual(['pyfee_card_plat', 'pyfee_card_proc']);
    expect(data.refunds).toHaveLength(1);
    expect(data.refunds[0].returned_fees).toEqual([
      expect.objectContaining({ id: 'rtfee_card_proc', returned_amount: 14, remaining_amount: 20 }),
    ]);
    expect(data.forwarding_requests.map((fwd: { id: string }) => fwd.id)).toEqual(['fwd_1', 'fwd_2']);
    const missing = await request(t.app)
      .get(`/api/payments/py_nope`)
      .set('Authorization', `Bearer ${API_TOKEN}`);
    expect(missing.status).toBe(404);
  });

  it('GET /api/events/:id shows the processing state', async () => {
    const event = JSON.parse(fixtureBodies('payment.created')[0] as string);
    const response = await request(t.app)
      .get(`/api/events/${event.id}`)
      .set('Authorization', `Bearer ${API_TOKEN}`);
    expect(response.body.data).toMatchObject({ status: 'processed', error: null });
    expect(response.body.data.processed_at).not.toBeNull();
  });
});

describe('order of delivery does not matter', () => {
  it('the fixtures delivered newest first project exactly as delivered in order', async () => {
    const reversed = await startTestApp({ worker: true });
    try {
      await deliver(reversed.app, allBodies().reverse());
      await drain(reversed);
      expect(await dumpProjections(reversed.pool, { withRowIds: false })).toEqual(
        await dumpProjections(t.pool, { withRowIds: false }),
      );
      // Spot checks of the pairs this covers: updated before created, refund before payment,
      // completed before created.
      const payment = await reversed.pool.query(`select status from payments where id = 'py_card_1'`);
      expect(payment.rows[0].status).toBe('partially_refunded');
      const checkout = await reversed.pool.query(`select status, fees from checkouts where id = 'cho_1'`);
      expect(checkout.rows[0]).toEqual({
        status: 'completed',
        fees: [{ type: 'platform_fee', amount: 100 }],
      });
    } finally {
      await reversed.close();
    }
  });

  it('a duplicate delivery and a second processing of the same event change nothing', async () => {
    const before = await dumpProjections(t.pool, { withRowIds: true });
    await deliver(t.app, fixtureBodies('payment.updated'));
    const { processStoredEvent } = await import('../../src/projection/processStoredEvent.ts');
    const { rows } = await t.pool.query(`select id from events order by id limit 3`);
    for (const row of rows) {
      await t.pool.query(`update events set status = 'received' where id = $1`, [row.id]);
      await processStoredEvent(t, row.id);
    }
    expect(await dumpProjections(t.pool, { withRowIds: true })).toEqual(before);
  });
});
