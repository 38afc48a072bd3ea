import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../simulator/server.ts';

// The simulator's POST /dev/payouts: which payments a payout takes, its faults on request, and the paid
// payouts a bank statement is rendered from.

const ACCOUNT = 'acc_sim_payouts';
let sim: Simulator;

function putPayment(id: string, amount: number, fee: number) {
  sim.putPayment({
    id,
    account_id: ACCOUNT,
    amount,
    currency: 'usd',
    status: 'succeeded',
    payment_method: { card: { id: `pm_${id}`, brand: 'visa' } },
    fees: [{ id: `pyfee_${id}`, type: 'processing_fee', amount: fee }],
    created_at: '2026-11-01T10:00:00.000Z',
  });
}

async function payOut(body: Record<string, unknown> = {}) {
  const response = await request(sim.app)
    .post('/dev/payouts')
    .send({ account_id: ACCOUNT, ...body });
  return response;
}

type Line = { txn_type: string; amount: number; fee: number; net: number; source_payment_id: string | null };
const summary = (lines: Line[]) =>
  lines.map(({ txn_type, amount, fee, net, source_payment_id }) => [
    txn_type,
    amount,
    fee,
    net,
    source_payment_id,
  ]);

beforeEach(() => {
  sim = createSimulator({
    clientId: 'c',
    clientSecret: 's',
    now: () => new Date('2026-11-03T12:00:00.000Z'),
  });
  putPayment('py_one', 10_000, 305);
  putPayment('py_two', 2_000, 88);
});

describe('POST /dev/payouts', () => {
  it('pays out the settled payments not paid out yet, its totals those of its lines', async () => {
    const response = await payOut({ sign_convention: 'positive' });
    expect(response.status).toBe(200);
    expect(summary(response.body.lines)).toEqual([
      ['seller_payment', 10_000, 0, 10_000, 'py_one'],
      ['processing_fee', 305, 0, 305, 'py_one'],
      ['seller_payment', 2_000, 0, 2_000, 'py_two'],
      ['processing_fee', 88, 0, 88, 'py_two'],
      ['payout', 11_607, 0, 11_607, null],
    ]);
    expect(response.body.payout).toMatchObject({
      amount: 11_607,
      status: 'paid',
      payments_count: 2,
      payments_total: 12_000,
      refunds_count: 0,
      refunds_total: 0,
      fees_total: 393,
      other_total: 0,
      deposits_at: '2026-11-03T12:00:00.000Z',
    });
    expect((await payOut()).status).toBe(422);
  });

  it('puts a wrong fee on request, inline or as a line, and the payout still adds up', async () => {
    const inline = await payOut({ fee_layout: 'inline', wrong_fee_line: 7 });
    expect(summary(inline.body.lines).slice(0, 2)).toEqual([
      ['seller_payment', 10_000, 312, 9_688, 'py_one'],
      ['seller_payment', 2_000, 88, 1_912, 'py_two'],
    ]);
    expect(inline.body.payout).toMatchObject({ amount: 11_600, fees_total: 400 });
    putPayment('py_three', 5_000, 175);
    const lines = await payOut({ wrong_fee_line: -5 });
    expect(summary(lines.body.lines)).toEqual([
      ['seller_payment', 5_000, 0, 5_000, 'py_three'],
      ['processing_fee', -170, 0, -170, 'py_three'],
      ['payout', -4_830, 0, -4_830, null],
    ]);
  });

  it('credits a payment twice and names an unknown payment on request', async () => {
    await payOut();
    putPayment('py_three', 5_000, 175);
    const response = await payOut({ pay_payment_twice: true, unknown_payment_line: true });
    const credited = response.body.lines
      .filter((line: Line) => line.txn_type === 'seller_payment')
      .map((line: Line) => line.source_payment_id);
    expect(credited.slice(0, 2)).toEqual(['py_three', 'py_two']);
    expect(credited[2]).toMatch(/^py_unknown_/);
    expect(sim.payments.get(credited[2])).toBeNull();
    expect(response.body.payout).toMatchObject({
      amount: 8_325,
      payments_count: 3,
    });
  });

  it('hands the payments of a failed payout back to the next one', async () => {
    const failed = await payOut({ status: 'failed' });
    expect(failed.body.payout).toMatchObject({ status: 'failed', amount: 11_607 });
    const next = await payOut({ status: 'in_transit', deposits_at: '2026-11-05T00:00:00.000Z' });
    expect(next.body.payout).toMatchObject({ status: 'in_transit', amount: 11_607 });
    expect(sim.paidPayouts()).toEqual([]);
    const paid = await request(sim.app)
      .post(`/dev/payouts/${next.body.payout.id}/status`)
      .send({ status: 'paid' });
    expect(paid.status).toBe(200);
    expect(sim.paidPayouts(ACCOUNT)).toEqual([
      {
        id: next.body.payout.id,
        account_id: ACCOUNT,
        amount: 11_607,
        currency: 'usd',
        deposits_at: '2026-11-05T00:00:00.000Z',
      },
    ]);
  });
});
