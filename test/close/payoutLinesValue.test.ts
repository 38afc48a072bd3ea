import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMovements } from '../../src/close/movementQueries.ts';
import { reconcilePayouts } from '../../src/payouts/reconcilePayouts.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  insertPaymentFees,
  insertPayments,
  insertPayoutLines,
  insertPayouts,
  insertSyncedAccount,
} from '../payouts/payoutRows.ts';

const NOW = new Date('2024-06-12T00:00:00Z');
const SETTINGS = { PAYOUT_EXPECTED_DAYS: { cc: 3, ach: 5 }, PAYOUT_OVERDUE_HOURS: 24 };

let pool: pg.Pool;
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await insertSyncedAccount(pool, 'acc_1', '2024-06-10T00:00:00Z');
  await insertPayments(pool, [{ id: 'py_1', amount: 10_000, fee_amount: 320 }]);
  await insertPaymentFees(pool, [{ id: 'pyfee_1', payment_id: 'py_1', amount: 320 }]);
  // py_1 less its fee (9,680 by Tally), a credit of a payment Tally never saw (700) and an `other` line (25).
  await insertPayouts(pool, [{ id: 'po_1', amount: 10_405, line_count: 5 }]);
  await insertPayoutLines(pool, [
    {
      id: 'bt_1',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 10_000,
      source_id: 'py_1',
      source_type: 'payment',
      source_payment_id: 'py_1',
    },
    {
      id: 'bt_2',
      payout_id: 'po_1',
      txn_type: 'processing_fee',
      kind: 'fee',
      amount: -320,
      source_payment_id: 'py_1',
    },
    {
      id: 'bt_3',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 700,
      source_id: 'py_9',
      source_type: 'payment',
      source_payment_id: 'py_9',
    },
    { id: 'bt_4', payout_id: 'po_1', txn_type: 'adjustment', kind: 'other', amount: 25 },
    { id: 'bt_5', payout_id: 'po_1', txn_type: 'payout', kind: 'payout', amount: -10_405, source_id: 'po_1' },
  ]);
  await reconcilePayouts(pool, ['po_1'], NOW, SETTINGS);
});
afterAll(() => pool.end());

const unexplained = async () =>
  (
    await listMovements(pool, new Date('2024-06-01T00:00:00Z'), new Date('2024-07-01T00:00:00Z'), 'UTC')
  ).filter((row) => row.kind === 'unexplained');

describe("a payout's lines valued at its judgement", () => {
  it('are kept with the judgement, and the close reads the same unexplained from them as from the lines', async () => {
    const { rows } = await pool.query('select lines_value from payout_reconciliations');
    expect(rows).toEqual([{ lines_value: 9_680 }]);
    const kept = await unexplained();
    expect(kept).toMatchObject([{ reference: 'po_1', amount: 725 }]);
    await pool.query('update payout_reconciliations set lines_value = null, lines_value_judged_at = null');
    expect(await unexplained()).toEqual(kept);
  });

  it('are read while the judgement that valued them stands, not once one that did not (an older release) replaced it', async () => {
    await pool.query('update payout_reconciliations set lines_value = 1, lines_value_judged_at = judged_at');
    expect(await unexplained()).toMatchObject([{ reference: 'po_1', amount: 10_404 }]);
    await pool.query(`update payout_reconciliations set judged_at = judged_at + interval '1 hour'`);
    expect(await unexplained()).toMatchObject([{ reference: 'po_1', amount: 725 }]);
  });
});
