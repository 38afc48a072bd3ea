import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import type pg from 'pg';
import { withTransaction } from '../../src/db/pool.ts';
import { copyRefundAccountKeys, replaceReturnedFees } from '../../src/projection/refunds/refundQueries.ts';

// Random payments, refunds and returned fees over five days around New York's 25-hour day (1 November 2026),
// in every state the close's rules tell apart, and random later changes to them, written as the projection
// writes them: a refund's returned fees replaced only while its refund's row is locked.

const BASE = Date.parse('2026-10-30T00:00:00Z');
const instant = fc.integer({ min: 0, max: 5 * 24 * 3600 }).map((seconds) => new Date(BASE + seconds * 1000));
const later = (at: Date | null, seconds: number) =>
  at === null ? null : new Date(at.getTime() + seconds * 1000);
const PAYMENT_STATUSES = [
  'succeeded',
  'partially_refunded',
  'fully_refunded',
  'refunded',
  'disputed',
  'failed',
  'pending',
  'canceled',
];
const REFUND_STATUSES = ['succeeded', 'success', 'pending', 'failed'];
const PAYMENTS = 12;
const REFUNDS = 10;

const paymentArbitrary = fc.record({
  account_id: fc.constantFrom('acc_1', 'acc_2'),
  account_type: fc.constantFrom('live', 'test'),
  currency: fc.constantFrom('usd', 'cad', null),
  amount: fc.option(fc.integer({ min: 0, max: 100_000 })),
  status: fc.constantFrom(...PAYMENT_STATUSES),
  returned: fc.constantFrom(true, false, null),
  capture_strategy: fc.constantFrom('automatic', 'manual', null),
  created_at: fc.option(instant, { freq: 8 }),
  // A manual capture succeeds after its creation, within its 7-day authorization.
  succeeded_after: fc.option(fc.integer({ min: 0, max: 2 * 24 * 3600 })),
  captured_after: fc.option(fc.integer({ min: 0, max: 2 * 24 * 3600 })),
  fees: fc.tuple(
    fc.integer({ min: 0, max: 500 }),
    fc.integer({ min: 0, max: 500 }),
    fc.integer({ min: 0, max: 500 }),
  ),
});

const returnedFeesArbitrary = fc.array(
  fc.record({
    type: fc.constantFrom('processing_fee', 'platform_fee', 'application_fee', null),
    returned_amount: fc.option(fc.integer({ min: 0, max: 300 })),
  }),
  { maxLength: 3 },
);

const refundArbitrary = fc.record({
  // Past the payments: a refund whose payment Tally does not have.
  payment: fc.integer({ min: 0, max: PAYMENTS }),
  amount: fc.option(fc.integer({ min: 0, max: 50_000 })),
  status: fc.constantFrom(...REFUND_STATUSES),
  created_at: fc.option(instant, { freq: 6 }),
  updated_at: instant,
  keyed: fc.boolean(),
  fees: returnedFeesArbitrary,
});

export type Activity = typeof activityArbitrary extends fc.Arbitrary<infer T> ? T : never;

export const activityArbitrary = fc.record({
  payments: fc.array(paymentArbitrary, { minLength: PAYMENTS, maxLength: PAYMENTS }),
  refunds: fc.array(refundArbitrary, { maxLength: REFUNDS }),
});

export const changeArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant('payment' as const),
    payment: fc.integer({ min: 0, max: PAYMENTS - 1 }),
    status: fc.constantFrom(...PAYMENT_STATUSES),
    amount: fc.option(fc.integer({ min: 0, max: 100_000 })),
    fee: fc.integer({ min: 0, max: 500 }),
    succeeded_after: fc.option(fc.integer({ min: 0, max: 2 * 24 * 3600 })),
  }),
  fc.record({
    kind: fc.constant('new_payment' as const),
    id: fc.integer({ min: 0, max: 1_000_000 }),
    payment: paymentArbitrary,
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    refund: fc.integer({ min: 0, max: REFUNDS - 1 }),
    status: fc.constantFrom(...REFUND_STATUSES),
    created_at: fc.option(instant, { freq: 4 }),
    updated_at: instant,
  }),
  fc.record({
    kind: fc.constant('fees' as const),
    refund: fc.integer({ min: 0, max: REFUNDS - 1 }),
    fees: returnedFeesArbitrary,
  }),
  fc.record({ kind: fc.constant('keys' as const), refund: fc.integer({ min: 0, max: REFUNDS - 1 }) }),
);
export type Change = typeof changeArbitrary extends fc.Arbitrary<infer T> ? T : never;

type Payment = Activity['payments'][number];

async function insertPayment(db: pg.Pool | pg.PoolClient, id: string, payment: Payment) {
  const succeededAt =
    payment.succeeded_after === null ? null : later(payment.created_at, payment.succeeded_after);
  const capturedAt =
    payment.captured_after === null ? null : later(payment.created_at, payment.captured_after);
  await db.query(
    `insert into payments (id, account_id, account_type, currency, amount, status, returned, capture_strategy,
                           created_at, succeeded_at, captured_at, fees_processing, fees_platform, fees_other,
                           updated_at, event_row_id, snapshot)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now(), 1, '{}')
     on conflict (id) do nothing`,
    [
      id,
      payment.account_id,
      payment.account_type,
      payment.currency,
      payment.amount,
      payment.status,
      payment.returned,
      payment.capture_strategy,
      payment.created_at,
      succeededAt,
      capturedAt,
      ...payment.fees,
    ],
  );
}

const feeRows = (refundId: string, fees: Activity['refunds'][number]['fees']) =>
  fees.map((fee, index) => ({
    id: `${refundId}_fee_${index}`,
    refund_id: refundId,
    payment_fee_id: null,
    type: fee.type,
    returned_amount: fee.returned_amount,
    original_amount: null,
    remaining_amount: null,
    currency: null,
  }));

/** Stores the activity: payments `py_N`, refunds `re_N` (each keyed from its payment, or not) and their fees. */
export async function insertActivity(db: pg.Pool, activity: Activity) {
  for (const [index, payment] of activity.payments.entries()) await insertPayment(db, `py_${index}`, payment);
  for (const [index, refund] of activity.refunds.entries()) {
    const id = `re_${index}`;
    await db.query(
      `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot,
                            account_type, account_id, currency)
       select $1, $2, $3, $4, $5, $6, 1, '{}', p.account_type, p.account_id, p.currency
         from (select 1) one left join payments p on p.id = $2 and $7`,
      [
        id,
        `py_${refund.payment}`,
        refund.amount,
        refund.status,
        refund.created_at,
        refund.updated_at,
        refund.keyed,
      ],
    );
    await replaceReturnedFees(db, [id], feeRows(id, refund.fees));
  }
}

/** Applies one change in its own transaction, held open `holdMilliseconds` before it commits. */
export async function applyChange(db: pg.Pool, change: Change, { holdMilliseconds = 0 } = {}) {
  await withTransaction(db, async (client) => {
    if (change.kind === 'payment')
      await client.query(
        `update payments set status = $2, amount = $3, fees_processing = $4,
                             succeeded_at = created_at + make_interval(secs => $5)
          where id = $1`,
        [`py_${change.payment}`, change.status, change.amount, change.fee, change.succeeded_after],
      );
    if (change.kind === 'new_payment') await insertPayment(client, `py_new_${change.id}`, change.payment);
    if (change.kind === 'refund')
      await client.query(`update refunds set status = $2, created_at = $3, updated_at = $4 where id = $1`, [
        `re_${change.refund}`,
        change.status,
        change.created_at,
        change.updated_at,
      ]);
    if (change.kind === 'fees') {
      // The projection upserts the refund, which locks its row, before it replaces the refund's fees.
      const id = `re_${change.refund}`;
      await client.query('select 1 from refunds where id = $1 for update', [id]);
      await replaceReturnedFees(client, [id], feeRows(id, change.fees));
    }
    if (change.kind === 'keys') await copyRefundAccountKeys(client, [`re_${change.refund}`], []);
    if (holdMilliseconds > 0) await sleep(holdMilliseconds);
  });
}
