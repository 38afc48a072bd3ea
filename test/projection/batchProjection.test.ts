import { afterAll, describe, expect, it } from 'vitest';
import { processStoredEvent, processStoredEvents } from '../../src/projection/processStoredEvent.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute)).toISOString();

const payment = (minute: number, fields: Record<string, unknown>) => ({
  id: 'py_batch',
  account_id: 'acc_sub_1',
  amount: 1234,
  currency: 'usd',
  checkout_id: 'cho_batch',
  payment_method: { card: { id: 'pm_batch', brand: 'visa', acct_last_four: '4242' } },
  created_at: at(0),
  updated_at: at(minute),
  ...fields,
});
const fee = (id: string, type: string, amount: number, remaining = amount) => ({
  id,
  type,
  amount,
  remaining_amount: remaining,
  currency: 'usd',
});
const returnedFee = (id: string, paymentFeeId: string, returned: number) => ({
  id,
  payment_fee_id: paymentFeeId,
  type: 'processing_fee',
  returned_amount: returned,
  original_amount: 30,
  remaining_amount: 30 - returned,
  currency: 'usd',
});
const forwarding = (minute: number, fields: Record<string, unknown>) => ({
  id: 'fwd_batch',
  payment_method_id: 'pm_batch',
  url: 'https://vault.example/forward',
  http_method: 'POST',
  created_at: at(0),
  updated_at: at(minute),
  ...fields,
});

/**
 * Several snapshots of one payment (fees and embedded refunds changing, one snapshot without status or
 * fees), of one refund, of a checkout and its completion, of a dispute and of a forwarding request with two
 * different outcomes, plus values Tally does not know, so every rule of every table meets itself in a batch.
 */
const deliveries = [
  ['payment.created', payment(0, { status: 'pending', payment_mode: 'ecom' })],
  [
    'payment.authorized',
    payment(1, { status: 'authorized', fees: [fee('pyfee_batch_p', 'processing_fee', 30)] }),
  ],
  [
    'payment.succeeded',
    payment(2, {
      status: 'succeeded',
      captured: true,
      fee_amount: 55,
      fees: [fee('pyfee_batch_p', 'processing_fee', 30), fee('pyfee_batch_plat', 'platform_fee', 25)],
      refunds: [],
    }),
  ],
  [
    'payment.updated',
    payment(5, {
      status: 'partially_refunded',
      captured: true,
      payment_mode: 'bnpl_unknown',
      amount_refunded: 500,
      fees: [fee('pyfee_batch_p', 'processing_fee', 30, 20), fee('pyfee_batch_plat', 'platform_fee', 25)],
      refunds: [
        {
          id: 're_batch',
          amount: 500,
          status: 'pending',
          returned_fees: [returnedFee('rtfee_batch_p', 'pyfee_batch_p', 10)],
        },
      ],
    }),
  ],
  // Newest of all, but says nothing about the status or the fees: it never wins them.
  ['payment.updated', payment(6, { error_description: 'note only' })],
  [
    'payment.refunded',
    {
      id: 're_batch',
      payment_id: 'py_batch',
      amount: 500,
      status: 'pending',
      reason: 'customer_request',
      returned_fees: [returnedFee('rtfee_batch_p', 'pyfee_batch_p', 10)],
      created_at: at(4),
      updated_at: at(4),
    },
  ],
  [
    'payment.refund.updated',
    {
      id: 're_batch',
      payment_id: 'py_batch',
      amount: 500,
      status: 'success',
      reason: 'customer_request',
      returned_fees: [returnedFee('rtfee_batch_other', 'pyfee_batch_p', 8)],
      created_at: at(4),
      updated_at: at(7),
    },
  ],
  [
    'checkout.created',
    {
      id: 'cho_batch',
      account_id: 'acc_sub_1',
      amount: 1234,
      payment_currency: 'USD',
      status: 'created',
      payment: { fees: [{ type: 'platform_fee', amount: 25 }] },
      created_at: at(0),
      updated_at: at(0),
    },
  ],
  [
    'checkout.completion.succeeded',
    {
      id: 'chc_batch',
      checkout_id: 'cho_batch',
      payment_id: 'py_batch',
      status: 'succeeded',
      updated_at: at(2),
    },
  ],
  [
    'checkout.completed',
    {
      id: 'cho_batch',
      account_id: 'acc_sub_1',
      amount: 1234,
      payment_currency: 'USD',
      status: 'completed',
      payment_id: 'py_batch',
      payment: { fees: [{ type: 'platform_fee', amount: 30 }] },
      created_at: at(0),
      updated_at: at(3),
    },
  ],
  [
    'payment.dispute.created',
    {
      id: 'dp_batch',
      payment_id: 'py_batch',
      amount: 1234,
      currency: 'USD',
      reason: 'fraudulent',
      due_date: '2026-11-20',
      status: 'needs_response',
      created_at: at(10),
      updated_at: at(10),
    },
  ],
  [
    'payment.dispute.closed',
    { id: 'dp_batch', payment_id: 'py_batch', status: 'lost', created_at: at(10), updated_at: at(12) },
  ],
  ['forwarding_request.created', forwarding(0, { status: 'pending' })],
  ['forwarding_request.completed', forwarding(1, { status: 'completed', response: { status_code: 200 } })],
  ['forwarding_request.failed', forwarding(2, { status: 'failed', failure_reason: 'timeout' })],
].map(([eventName, data]) => JSON.stringify(paymentEvent({ event_name: eventName, data })));

// A fixed-seed shuffle: the orders differ from run to run of the seed, never between test runs.
function shuffled<T>(items: T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  for (let index = result.length - 1; index > 0; index -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

/** Stores the bodies in this order (so delivery row ids follow it), then processes them as `process` says. */
async function projected(
  bodies: string[],
  process: (t: TestApp, ids: number[]) => Promise<void>,
  withRowIds = true,
) {
  const t = await startTestApp();
  apps.push(t);
  await deliver(t.app, bodies);
  // Unknown values are counted at their deliveries' arrival times: the same in every database compared.
  await t.pool.query(`update events set received_at = '2026-11-02T11:00:00Z'`);
  const ids = (await t.pool.query('select id from events order by id')).rows.map((row) => row.id as number);
  await process(t, ids);
  const statuses = await t.pool.query('select status, count(*)::int as n from events group by status');
  expect(statuses.rows).toEqual([{ status: 'processed', n: bodies.length }]);
  const findings = await t.pool.query(
    'select code, subject_id, account_id, status, expected, actual, details from findings order by code, subject_id',
  );
  return { projections: await dumpProjections(t.pool, { withRowIds }), findings: findings.rows };
}

const oneAtATime = async (t: TestApp, ids: number[]) => {
  for (const id of ids) await processStoredEvent(t, id);
};
const asBatches = (size: number) => async (t: TestApp, ids: number[]) => {
  for (let start = 0; start < ids.length; start += size) {
    const failures = await processStoredEvents(t, ids.slice(start, start + size));
    expect([...failures.values()]).toEqual([]);
  }
  // One transaction per batch (its now() is each processed_at), not the one-at-a-time fallback.
  const transactions = await t.pool.query('select count(distinct processed_at)::int as n from events');
  expect(transactions.rows[0].n).toBe(Math.ceil(ids.length / size));
};

describe('a batch projected in a handful of statements', () => {
  it.each([1, 2, 3])(
    'gives exactly what its deliveries give one at a time, in any order (order %i)',
    async (seed) => {
      const bodies = shuffled(deliveries, seed);
      const expected = await projected(bodies, oneAtATime);
      expect(expected.projections.payments).toHaveLength(1);
      expect(expected.findings.map((finding) => finding.code)).toContain('forwarding_outcome_conflict');
      // The whole lot as one batch, and in two batches so the second meets rows the first stored.
      expect(await projected(bodies, asBatches(bodies.length))).toEqual(expected);
      expect(await projected(bodies, asBatches(Math.ceil(bodies.length / 2)))).toEqual(expected);
    },
  );

  it('gives the same projections whatever the order the deliveries arrived in', async () => {
    // Delivery row ids follow the arrival order, so they are left out here.
    const [first, second] = await Promise.all(
      [4, 5].map((seed) => projected(shuffled(deliveries, seed), asBatches(deliveries.length), false)),
    );
    expect(second).toEqual(first);
  });
});
