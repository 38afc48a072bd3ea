import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPeriodReport } from '../../src/close/buildPeriodReport.ts';
import { walkHolds } from '../../src/close/walk.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayments, insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

// The payout sync's first listing of acc_1 started on 15 May: py_old (1 May) and its refund re_old (3 May)
// were paid out, if at all, by a payout Tally never listed; py_new (5 June) and re_new (6 June) are after it.
// Each refund handed back 30 cents of processing fee.
let pool: pg.Pool;
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ('acc_1', '2024-06-20T00:00:00Z', '2024-05-15T00:00:00Z', null)`,
  );
  await insertPayments(pool, [
    { id: 'py_old', amount: 4_000, created_at: '2024-05-01T00:00:00Z' },
    { id: 'py_new', amount: 6_000, created_at: '2024-06-05T00:00:00Z' },
  ]);
  await pool.query(
    `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot)
     values ('re_old', 'py_old', 1000, 'succeeded', '2024-05-03T00:00:00Z', '2024-05-03T00:00:00Z', 1, '{}'),
            ('re_new', 'py_new', 500, 'succeeded', '2024-06-06T00:00:00Z', '2024-06-06T00:00:00Z', 1, '{}');
     insert into returned_fees (id, refund_id, type, returned_amount)
     values ('rf_old', 're_old', 'processing_fee', 30), ('rf_new', 're_new', 'processing_fee', 30)`,
  );
});
afterAll(() => pool.end());

const report = async (period: string) => {
  const built = await buildPeriodReport(pool, period, 'UTC', new Date('2024-07-02T00:00:00Z'), null);
  expect(built.accounts.map((account) => account.account_id)).toEqual(['acc_1']);
  return built.accounts[0] as (typeof built.accounts)[number];
};

describe('items older than the payout sync’s first listing', () => {
  it('an old payment or refund in no synced payout is neither activity nor held; a newer one is', async () => {
    const june = await report('2024-06');
    expect(june.activity).toMatchObject({ sales: 6_000, refunds: 500, fees_returned: 30, net: 5_530 });
    expect(june.walk).toEqual({
      held_start: 0,
      prior_period_adjustments: 0,
      net: 5_530,
      unexplained: 0,
      paid_out: 0,
      held_end: 5_530,
    });
    expect(walkHolds(june.walk)).toBe(true);
    const may = await buildPeriodReport(pool, '2024-05', 'UTC', new Date('2024-07-02T00:00:00Z'), null);
    expect(may.accounts).toEqual([]);
  });

  it('counts on its own day once a synced payout contains it, and the walk still holds to the cent', async () => {
    await insertPayouts(pool, [
      { id: 'po_1', amount: 3_030, created_at: '2024-06-10T00:00:00Z', line_count: 3 },
    ]);
    await insertPayoutLines(pool, [
      {
        id: 'bt_1',
        payout_id: 'po_1',
        txn_type: 'seller_payment',
        kind: 'payment',
        amount: 4_000,
        source_id: 'py_old',
        source_type: 'payment',
        source_payment_id: 'py_old',
      },
      {
        id: 'bt_3',
        payout_id: 'po_1',
        txn_type: 'seller_refund',
        kind: 'refund',
        amount: -970,
        source_id: 're_old',
        source_type: 'refund',
        source_payment_id: 'py_old',
      },
      {
        id: 'bt_2',
        payout_id: 'po_1',
        txn_type: 'payout',
        kind: 'payout',
        amount: -3_030,
        source_id: 'po_1',
      },
    ]);
    await pool.query(
      `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
       values ('bt_1', 'po_1', 'payment', 'py_old', 'ok', 4000, 4000, now()),
              ('bt_3', 'po_1', 'refund', 're_old', 'ok', -970, -970, now())`,
    );
    expect((await report('2024-05')).activity).toMatchObject({
      sales: 4_000,
      refunds: 1_000,
      fees_returned: 30,
      net: 3_030,
    });
    const june = await report('2024-06');
    expect(june.walk).toEqual({
      held_start: 3_030,
      prior_period_adjustments: 0,
      net: 5_530,
      unexplained: 0,
      paid_out: 3_030,
      held_end: 5_530,
    });
    expect(walkHolds(june.walk)).toBe(true);
  });
});
