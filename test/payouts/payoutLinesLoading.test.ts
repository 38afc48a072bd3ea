import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PayoutSettings, reconcilePayouts } from '../../src/payouts/reconcilePayouts.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  insertPayments,
  insertPayoutLines,
  insertPayouts,
  insertSyncedAccount,
  listAllFindings,
} from './payoutRows.ts';

// A payout whose lines are loading again (a changed payout whose lines the sync fetches anew, or a rebuild from
// the raw log replaying its snapshots) is not judged on what is there so far: not its lines, and not the
// payments its last judgement matched, whose credits are not all known yet.

const NOW = new Date('2024-06-12T00:00:00Z');
const SETTINGS: PayoutSettings = { PAYOUT_EXPECTED_DAYS: { cc: 3, ach: 5 }, PAYOUT_OVERDUE_HOURS: 24 };
let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  // py_1 (10,000, created 2024-06-01, due in a payout by the 4th) between the oldest payout and the newest.
  await insertSyncedAccount(pool, 'acc_1', '2024-06-10T00:00:00Z');
  await insertPayments(pool, [{ id: 'py_1', amount: 10_000 }]);
  await insertPayouts(pool, [
    { id: 'po_1', amount: 10_000, created_at: '2024-06-02T00:00:00Z', deposits_at: '2024-06-03T00:00:00Z' },
    { id: 'po_0', amount: 0, created_at: '2024-05-20T00:00:00Z', deposits_at: '2024-05-21T00:00:00Z' },
  ]);
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
  ]);
});
afterAll(() => pool.end());

describe('a payout whose lines are loading again', () => {
  it('leaves the payments it credited unjudged until every line is in, then finds them paid out', async () => {
    expect(await reconcilePayouts(pool, ['po_1'], NOW, SETTINGS)).toMatchObject({ judged: ['po_1'] });
    expect(await listAllFindings(pool)).toEqual([]);
    // As a rebuild leaves it before its line snapshots are replayed: the payout back, its lines not yet.
    await pool.query(`delete from payout_lines`);
    await pool.query(`update payouts set lines_complete = false where id = 'po_1'`);
    expect(await reconcilePayouts(pool, ['po_1'], NOW, SETTINGS)).toMatchObject({ unjudged: ['po_1'] });
    expect(await listAllFindings(pool)).toEqual([]);
    await insertPayoutLines(pool, [
      {
        id: 'bt_1',
        payout_id: 'po_1',
        txn_type: 'seller_payment',
        kind: 'payment',
        amount: 10_000,
        source_payment_id: 'py_1',
      },
    ]);
    await pool.query(`update payouts set lines_complete = true where id = 'po_1'`);
    expect(await reconcilePayouts(pool, ['po_1'], NOW, SETTINGS)).toMatchObject({ judged: ['po_1'] });
    expect(await listAllFindings(pool)).toEqual([]);
  });
});
