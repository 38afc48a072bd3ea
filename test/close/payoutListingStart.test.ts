import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPeriodReport } from '../../src/close/buildPeriodReport.ts';
import { walkHolds } from '../../src/close/walk.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayments, insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

// The payout sync's first listing of acc_1 started on 15 May: py_old (1 May) was paid out, if at all, by a
// payout Tally never listed; py_new (5 June) is after it.
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
});
afterAll(() => pool.end());

const report = async (period: string) => {
  const built = await buildPeriodReport(pool, period, 'UTC', new Date('2024-07-02T00:00:00Z'), null);
  expect(built.accounts.map((account) => account.account_id)).toEqual(['acc_1']);
  return built.accounts[0] as (typeof built.accounts)[number];
};

describe('items older than the payout sync’s first listing', () => {
  it('an old payment in no synced payout is neither activity nor held; a newer one is', async () => {
    const june = await report('2024-06');
    expect(june.walk).toEqual({
      held_start: 0,
      prior_period_adjustments: 0,
      net: 6_000,
      unexplained: 0,
      paid_out: 0,
      held_end: 6_000,
    });
    expect(walkHolds(june.walk)).toBe(true);
    const may = await buildPeriodReport(pool, '2024-05', 'UTC', new Date('2024-07-02T00:00:00Z'), null);
    expect(may.accounts).toEqual([]);
  });

  it('counts on its own day once a synced payout contains it, and the walk still holds to the cent', async () => {
    await insertPayouts(pool, [
      { id: 'po_1', amount: 4_000, created_at: '2024-06-10T00:00:00Z', line_count: 2 },
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
        id: 'bt_2',
        payout_id: 'po_1',
        txn_type: 'payout',
        kind: 'payout',
        amount: -4_000,
        source_id: 'po_1',
      },
    ]);
    await pool.query(
      `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
       values ('bt_1', 'po_1', 'payment', 'py_old', 'ok', 4000, 4000, now())`,
    );
    expect((await report('2024-05')).activity).toMatchObject({ sales: 4_000, net: 4_000 });
    const june = await report('2024-06');
    expect(june.walk).toEqual({
      held_start: 4_000,
      prior_period_adjustments: 0,
      net: 6_000,
      unexplained: 0,
      paid_out: 4_000,
      held_end: 6_000,
    });
    expect(walkHolds(june.walk)).toBe(true);
  });
});
