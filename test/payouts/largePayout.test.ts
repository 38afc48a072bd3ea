import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { reconcilePayouts } from '../../src/payouts/reconcilePayouts.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayouts } from './payoutRows.ts';

const LINES = 5000;
let pool: pg.Pool;

// 2,500 payments of 1000 each, every one credited by a payout line with a fee line of 30 beside it.
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await pool.query(
    `insert into payments (id, account_id, account_type, amount, currency, status, method_kind, created_at, updated_at,
                           event_row_id, snapshot)
     select 'py_' || n, 'acc_1', 'live', 1000, 'usd', 'succeeded', 'card', '2024-06-01', '2024-06-01', 1, '{}'
       from generate_series(1, ${LINES / 2}) n;
     insert into payment_fees (id, payment_id, type, amount, snapshot_updated_at)
     select 'pyfee_' || n, 'py_' || n, 'processing_fee', 30, '2024-06-01' from generate_series(1, ${LINES / 2}) n;
     insert into payout_lines (id, payout_id, account_id, txn_type, kind, amount, net, currency, source_id,
                               source_type, source_payment_id, event_row_id, projected_at)
     select 'bt_' || n || '_' || kind.txn_type, 'po_big', 'acc_1', kind.txn_type, kind.kind, kind.amount, kind.amount,
            'usd', 'py_' || n, 'payment', 'py_' || n, 1, '2024-06-01'
       from generate_series(1, ${LINES / 2}) n,
            (values ('seller_payment', 'payment', 1000), ('processing_fee', 'fee', -30)) kind(txn_type, kind, amount)`,
  );
  await insertPayouts(pool, [
    {
      id: 'po_big',
      amount: (LINES / 2) * 970,
      payments_count: LINES / 2,
      payments_total: (LINES / 2) * 1000,
    },
  ]);
});
afterAll(() => pool.end());

it('a payout of 5,000 lines is judged in a fixed handful of statements', async () => {
  const query = vi.spyOn(pg.Client.prototype, 'query');
  const summary = await reconcilePayouts(pool, ['po_big'], new Date('2024-06-12T00:00:00Z'), {
    PAYOUT_EXPECTED_DAYS: { cc: 3 },
    PAYOUT_OVERDUE_HOURS: 24,
  });
  const statements = query.mock.calls.length;
  query.mockRestore();
  expect(summary).toEqual({ judged: ['po_big'], unjudged: [], overtaken: [] });
  expect(statements).toBeLessThanOrEqual(25);
  const { rows } = await pool.query(
    `select status, count(*)::int as lines from payout_line_checks group by status order by status`,
  );
  expect(rows).toEqual([{ status: 'ok', lines: LINES }]);
  expect((await pool.query(`select from findings where status <> 'resolved'`)).rowCount).toBe(0);
});
