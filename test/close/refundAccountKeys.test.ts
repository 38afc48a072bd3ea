import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPeriodReport } from '../../src/close/buildPeriodReport.ts';
import { listItemsWithoutLine } from '../../src/close/tieOutQueries.ts';
import { runBackfills } from '../../src/db/backfill.ts';
import { BACKFILLS } from '../../src/db/backfills.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain } from '../helpers/fixtures.ts';
import { insertPayments } from '../payouts/payoutRows.ts';

// A refund of py_keys delivered before the payment itself, in October 2026 (UTC): the refund row has no account
// key until the payment arrives. The close counts a refund by its payment's account, keyed or not.
const refund = {
  id: 're_keys',
  payment_id: 'py_keys',
  amount: 400,
  status: 'success',
  reason: 'customer_request',
  returned_fees: [
    {
      id: 'rtfee_keys',
      payment_fee_id: 'pyfee_keys',
      type: 'processing_fee',
      returned_amount: 12,
      original_amount: 40,
      remaining_amount: 28,
      currency: 'cad',
    },
  ],
  created_at: '2026-10-05T12:00:00Z',
  updated_at: '2026-10-05T12:00:00Z',
};
const payment = {
  id: 'py_keys',
  amount: 1_000,
  currency: 'cad',
  status: 'partially_refunded',
  amount_refunded: 400,
  fees: [{ id: 'pyfee_keys', type: 'processing_fee', amount: 40, remaining_amount: 28, currency: 'cad' }],
  created_at: '2026-10-03T12:00:00Z',
  updated_at: '2026-10-05T12:00:00Z',
};
const envelope = (eventName: string, data: object) =>
  JSON.stringify(paymentEvent({ event_name: eventName, account_id: 'acc_keys', account_type: 'live', data }));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ worker: true });
});
afterAll(() => t.close());

const keyOfRefund = async () =>
  (await t.pool.query('select account_type, account_id, currency from refunds where id = $1', ['re_keys']))
    .rows;
const october = () => buildPeriodReport(t.pool, '2026-10', 'UTC', new Date('2026-11-02T00:00:00Z'), null);

describe('a refund’s account key', () => {
  it('is its payment’s, copied when the payment arrives after the refund', async () => {
    await deliver(t.app, [envelope('payment.refund.updated', refund)]);
    await drain(t);
    expect(await keyOfRefund()).toEqual([{ account_type: null, account_id: null, currency: null }]);
    // No payment yet: the refund belongs to no account, so no period counts it.
    expect((await october()).accounts).toEqual([]);

    await deliver(t.app, [envelope('payment.succeeded', payment)]);
    await drain(t);
    expect(await keyOfRefund()).toEqual([{ account_type: 'live', account_id: 'acc_keys', currency: 'cad' }]);
    const [account] = (await october()).accounts;
    expect(account).toMatchObject({ account_type: 'live', account_id: 'acc_keys', currency: 'cad' });
    expect(account?.activity).toMatchObject({ sales: 1_000, refunds: 400, fees_returned: 12 });
  });

  it('gives the same close when a refund has none (written before the key existed), and the backfill fills it', async () => {
    const keyed = await october();
    await t.pool.query(`update refunds set account_type = null, account_id = null, currency = null`);
    expect(await october()).toEqual(keyed);

    await t.pool.query(`delete from schema_backfills where name = '0034_refund_account_keys'`);
    await runBackfills(t.databaseUrl, createLogger('silent'), BACKFILLS);
    expect(await keyOfRefund()).toEqual([{ account_type: 'live', account_id: 'acc_keys', currency: 'cad' }]);
    expect(await october()).toEqual(keyed);
  });
});

describe('a refund another transaction holds', () => {
  it('is left without a key rather than waited for, and the close still counts it', async () => {
    const held = {
      ...refund,
      id: 're_held',
      payment_id: 'py_held',
      returned_fees: [{ ...refund.returned_fees[0], id: 'rtfee_held' }],
    };
    await deliver(t.app, [envelope('payment.refund.updated', held)]);
    await drain(t);
    const holder = await t.pool.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from refunds where id = 're_held' for update`);
      await deliver(t.app, [envelope('payment.succeeded', { ...payment, id: 'py_held' })]);
      // Drained while the refund is still held: the batch did not wait for it.
      await drain(t);
      const { rows } = await t.pool.query(`select account_id from refunds where id = 're_held'`);
      expect(rows).toEqual([{ account_id: null }]);
      const [account] = (await october()).accounts;
      expect(account?.activity).toMatchObject({ sales: 2_000, refunds: 800, fees_returned: 24 });
    } finally {
      await holder.query('rollback');
      holder.release();
    }
  });
});

describe('the tie-out’s refunds without a provider line', () => {
  it('lists a keyed refund and one without a key alike, under their payment’s account', async () => {
    const pool = new pg.Pool({ connectionString: await createTestDatabase() });
    try {
      await pool.query(
        `insert into payout_sync_accounts (account_id, synced_at, listed_from) values ('acc_1', now(), '2024-05-01T00:00:00Z');
         insert into provider_ledger_listings (account_id, listed_at) values ('acc_1', '2024-07-01T00:00:00Z')`,
      );
      await insertPayments(pool, [
        { id: 'py_a', amount: 4_000, currency: 'cad' },
        { id: 'py_b', amount: 6_000 },
      ]);
      await pool.query(
        `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot,
                              account_type, account_id, currency)
         values ('re_keyed', 'py_a', 1000, 'succeeded', '2024-06-03T00:00:00Z', '2024-06-03T00:00:00Z', 1, '{}',
                 'live', 'acc_1', 'cad'),
                ('re_keyless', 'py_b', 500, 'succeeded', '2024-06-04T00:00:00Z', '2024-06-04T00:00:00Z', 1, '{}',
                 null, null, null)`,
      );
      const items = await listItemsWithoutLine(pool, new Date('2024-07-01T00:00:00Z'));
      expect(items).toEqual([
        {
          account_id: 'acc_1',
          currency: 'cad',
          type: 'refund',
          id: 're_keyed',
          amount: -1000,
          at: new Date('2024-06-03T00:00:00Z'),
        },
        {
          account_id: 'acc_1',
          currency: 'usd',
          type: 'refund',
          id: 're_keyless',
          amount: -500,
          at: new Date('2024-06-04T00:00:00Z'),
        },
      ]);
    } finally {
      await pool.end();
    }
  });
});
