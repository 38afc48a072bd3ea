import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMovements } from '../../src/close/movementQueries.ts';
import { periodBounds } from '../../src/close/periods.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayments } from '../payouts/payoutRows.ts';

// The close dates each refund by the business day its instant falls in, found among the period's days rather
// than by converting every refund's instant: these instants sit on the edges of New York's days.
const ZONE = 'America/New_York';
const REFUNDS: [id: string, createdAt: string, amount: number][] = [
  // 31 October, 23:30 in New York (EDT, UTC−4) is 1 November 03:30 UTC.
  ['re_oct31_late', '2026-11-01T03:30:00Z', 1],
  // 1 November is 25 hours long (clocks go back): 04:00 UTC to 05:00 UTC the next day.
  ['re_nov1_first', '2026-11-01T04:00:00Z', 20],
  ['re_nov1_last', '2026-11-02T04:59:59.999Z', 300],
  ['re_nov2_first', '2026-11-02T05:00:00Z', 4_000],
  // Older than every payment: the period's days start at the first payment, so this one is converted.
  ['re_before_payments', '2026-09-15T12:00:00Z', 50_000],
];

let pool: pg.Pool;
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await insertPayments(pool, [{ id: 'py_1', amount: 100_000, created_at: '2026-10-01T12:00:00Z' }]);
  for (const [id, createdAt, amount] of REFUNDS) {
    await pool.query(
      `insert into refunds (id, payment_id, amount, status, created_at, updated_at, event_row_id, snapshot,
                            account_type, account_id, currency)
       values ($1, 'py_1', $2, 'succeeded', $3, $3, 1, '{}', 'live', 'acc_1', 'usd')`,
      [id, amount, createdAt],
    );
  }
});
afterAll(() => pool.end());

const refundsByDay = (rows: Awaited<ReturnType<typeof listMovements>>) =>
  Object.fromEntries(rows.filter((row) => row.kind === 'refund').map((row) => [row.day, row.amount]));

describe('a refund’s business day in the close', () => {
  it('is the New York day its instant falls in, on both edges of the 25-hour day', async () => {
    const october = periodBounds('2026-10', ZONE);
    const november = periodBounds('2026-11', ZONE);
    expect(refundsByDay(await listMovements(pool, october.from, october.to, ZONE))).toEqual({
      '2026-10-31': 1,
    });
    expect(refundsByDay(await listMovements(pool, november.from, november.to, ZONE))).toEqual({
      '2026-11-01': 320,
      '2026-11-02': 4_000,
    });
  });

  it('is still found for a refund older than every payment, in the months before a period', async () => {
    const { from } = periodBounds('2026-11', ZONE);
    expect(refundsByDay(await listMovements(pool, null, from, ZONE, 'month'))).toEqual({
      '2026-09-01': 50_000,
      '2026-10-01': 1,
    });
  });
});
