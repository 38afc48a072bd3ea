import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildPeriodReport } from '../../src/close/buildPeriodReport.ts';
import { keepMovementDaysIn } from '../../src/close/keepMovementDays.ts';
import { listKeptDays } from '../../src/close/keptDayQueries.ts';
import { listFromRows, listMovements, listSalesAndRefunds } from '../../src/close/movementQueries.ts';
import type { MovementRow } from '../../src/close/movementRules.ts';
import { createLogger } from '../../src/logger.ts';
import { foldMovementDays } from '../../src/projection/foldMovementDays.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayments, insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';
import {
  type Activity,
  activityArbitrary,
  applyChange,
  type Change,
  changeArbitrary,
  insertActivity,
} from './movementActivity.ts';

// The close reads sales, fees, refunds and returned fees from days kept by triggers (migration 0036) and from
// the rows only at the range's edges: for any activity and any later changes to it, both give the same sums,
// in a zone behind UTC with a 25-hour day and in one 5 h 45 min ahead.
const ZONES = ['America/New_York', 'Asia/Kathmandu'];
const RANGES: [from: Date | null, to: Date][] = [
  [null, new Date('2026-11-04T00:00:00Z')],
  [new Date('2026-10-31T04:00:00Z'), new Date('2026-11-02T05:00:00Z')],
  // Edges inside a day: read from the rows.
  [new Date('2026-10-30T18:07:30Z'), new Date('2026-11-01T05:52:00Z')],
];

let pool: pg.Pool;
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 8 });
});
afterAll(() => pool.end());
beforeEach(() => pool.query('truncate payments, refunds, returned_fees'));

/** What `release` runs with BUSINESS_TIME_ZONE. */
const keepDaysIn = (zone: string) => keepMovementDaysIn(pool, zone, createLogger('silent'));

// Summed per account key, day (or month, as listMovements dates them) and kind.
const sums = (rows: MovementRow[], granularity: 'day' | 'month') => {
  const byKey = new Map<string, number>();
  for (const row of rows) {
    const day = granularity === 'day' ? row.day : row.day.slice(0, 7);
    const key = [row.account_type, row.account_id, row.currency, day, row.kind].join('|');
    byKey.set(key, (byKey.get(key) ?? 0) + row.amount);
  }
  return Object.fromEntries(
    [...byKey].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
};

async function expectKeptEqualsRows(zone: string) {
  for (const [from, to] of RANGES) {
    expect(await listKeptDays(pool, from, to, zone)).not.toBeNull();
    for (const granularity of ['day', 'month'] as const) {
      const kept = sums(await listSalesAndRefunds(pool, from, to, zone, granularity), granularity);
      expect(kept).toEqual(sums(await listFromRows(pool, from, to, zone, granularity), granularity));
    }
  }
}

const sampleActivity = (seed: number): Activity =>
  fc.sample(activityArbitrary, { numRuns: 1, seed })[0] as Activity;

const keptRows = async () =>
  (await pool.query('select 1 from movement_days union all select 1 from movement_day_deltas')).rowCount;

describe('the kept days of sales and refunds', () => {
  it('sum to what the rows say, for any activity and any changes to it, kept as written or counted after, folded or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        activityArbitrary,
        fc.array(changeArbitrary, { maxLength: 12 }),
        fc.constantFrom(...ZONES),
        fc.boolean(),
        fc.boolean(),
        async (
          activity: Activity,
          changes: Change[],
          zone: string,
          keptAsWritten: boolean,
          fold: boolean,
        ) => {
          await pool.query('truncate payments, refunds, returned_fees');
          await pool.query('update movement_days_zone set time_zone = null, complete = false');
          if (keptAsWritten) await keepDaysIn(zone);
          await insertActivity(pool, activity);
          for (const change of changes) await applyChange(pool, change);
          if (!keptAsWritten) await keepDaysIn(zone);
          if (fold) await foldMovementDays(pool);
          await expectKeptEqualsRows(zone);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('stay equal to the rows under concurrent writers and folds, and while release counts the stored rows', async () => {
    await pool.query('update movement_days_zone set time_zone = null, complete = false');
    await insertActivity(pool, sampleActivity(7));
    const changes = fc.sample(changeArbitrary, { numRuns: 240, seed: 11 });
    // Six writers at once, each change in its own transaction (held open a moment, so they overlap), folds
    // between them, and the zone set and the stored rows counted meanwhile.
    const writers = Array.from({ length: 6 }, async (_, writer) => {
      for (const [index, change] of changes.entries())
        if (index % 6 === writer) {
          await applyChange(pool, change, { holdMilliseconds: 2 });
          if (index % 5 === 0) await foldMovementDays(pool);
        }
    });
    await Promise.all([...writers, keepDaysIn(ZONES[0] as string)]);
    await expectKeptEqualsRows(ZONES[0] as string);
    await foldMovementDays(pool);
    expect(await pool.query('select 1 from movement_day_deltas')).toHaveProperty('rowCount', 0);
    await expectKeptEqualsRows(ZONES[0] as string);
  });

  it('count a refund changed and its fees replaced at the same moment, each in its own transaction', async () => {
    await keepDaysIn('America/New_York');
    const refunds = Array.from({ length: 10 }, (_, index) => ({
      payment: index,
      amount: 1_000 + index,
      status: 'pending',
      created_at: new Date('2026-11-01T12:00:00Z'),
      updated_at: new Date('2026-11-01T12:00:00Z'),
      keyed: true,
      fees: [{ type: 'processing_fee' as const, returned_amount: 30 + index }],
    }));
    await insertActivity(pool, { payments: sampleActivity(9).payments, refunds });
    // Both transactions' triggers run before either commits: each reads the other's side as it was, unless the
    // fees' writer waits for the refund's row, as the projection does.
    await Promise.all(
      refunds.flatMap((refundRow, refund) => [
        applyChange(
          pool,
          {
            kind: 'refund',
            refund,
            status: 'succeeded',
            created_at: refundRow.created_at,
            updated_at: new Date(),
          },
          { holdMilliseconds: 50 },
        ),
        applyChange(
          pool,
          { kind: 'fees', refund, fees: [{ type: 'platform_fee', returned_amount: 70 + refund }] },
          { holdMilliseconds: 50 },
        ),
      ]),
    );
    await expectKeptEqualsRows('America/New_York');
  });

  it('are emptied with the tables a rebuild truncates, each kind with its own table', async () => {
    await keepDaysIn('America/New_York');
    await insertActivity(pool, sampleActivity(3));
    await pool.query('truncate payments');
    const kinds = await pool.query<{ kind: string }>(
      'select distinct kind from (select kind from movement_days union all select kind from movement_day_deltas) s',
    );
    expect(kinds.rows.map(({ kind }) => kind).sort()).toEqual(expect.arrayContaining(['refund']));
    expect(kinds.rows.every(({ kind }) => kind === 'refund' || kind.startsWith('fee_returned_'))).toBe(true);
    await pool.query('truncate refunds, returned_fees');
    expect(await keptRows()).toBe(0);
  });

  it('follow a change of zone: emptied, counted again in the new zone, and not read in the old one', async () => {
    await keepDaysIn('America/New_York');
    await insertActivity(pool, sampleActivity(5));
    await foldMovementDays(pool);
    // Whatever the days held (a lost fold, a stray delta), counting them again in a zone gives the rows' sums.
    await pool.query(`delete from movement_days where kind in ('sale', 'refund')`);
    await pool.query(
      `insert into movement_day_deltas values ('live', 'acc_1', 'usd', '2026-11-01', 'fee_other', 777)`,
    );
    await keepDaysIn('Asia/Kathmandu');
    await expectKeptEqualsRows('Asia/Kathmandu');
    expect(await listKeptDays(pool, null, new Date('2026-11-04T00:00:00Z'), 'America/New_York')).toBeNull();
    expect(await pool.query('select time_zone, complete from movement_days_zone')).toMatchObject({
      rows: [{ time_zone: 'Asia/Kathmandu', complete: true }],
    });
  });

  it('give the close report, journal included, that the rows give', async () => {
    await pool.query('update movement_days_zone set time_zone = null, complete = false');
    await insertActivity(pool, sampleActivity(13));
    for (const change of fc.sample(changeArbitrary, { numRuns: 20, seed: 17 }))
      await applyChange(pool, change);
    const generatedAt = new Date('2026-12-05T00:00:00Z');
    const reports = () =>
      Promise.all(
        ['2026-10', '2026-11'].map((period) =>
          buildPeriodReport(pool, period, 'America/New_York', generatedAt, null),
        ),
      );
    const fromRows = await reports();
    expect(fromRows.flatMap((report) => report.journal).length).toBeGreaterThan(0);
    await keepDaysIn('America/New_York');
    expect(await reports()).toEqual(fromRows);
  });

  it('leave a manual capture that succeeded before its account’s listing start out, until a listed payout has it', async () => {
    await keepDaysIn('UTC');
    await pool.query(`insert into payout_sync_accounts (account_id, synced_at, listed_from)
                      values ('acc_9', now(), '2026-11-01T12:00:00Z')`);
    const manual = { account_id: 'acc_9', capture_strategy: 'manual', created_at: '2026-10-31T10:00:00Z' };
    await insertPayments(pool, [
      { ...manual, id: 'py_manual_before', amount: 700, succeeded_at: '2026-11-01T08:00:00Z' },
      { ...manual, id: 'py_manual_after', amount: 900, succeeded_at: '2026-11-01T13:00:00Z' },
    ]);
    const sales = async () =>
      (await listMovements(pool, new Date('2026-11-01T00:00:00Z'), new Date('2026-11-02T00:00:00Z'), 'UTC'))
        .filter((row) => row.account_id === 'acc_9' && row.kind === 'sale')
        .map(({ day, amount }) => ({ day, amount }));
    expect(await sales()).toEqual([{ day: '2026-11-01', amount: 900 }]);
    await insertPayouts(pool, [
      { id: 'po_manual', account_id: 'acc_9', amount: 700, created_at: '2026-11-03T00:00:00Z' },
    ]);
    await insertPayoutLines(pool, [
      {
        id: 'bt_manual',
        payout_id: 'po_manual',
        account_id: 'acc_9',
        txn_type: 'seller_payment',
        kind: 'payment',
        amount: 700,
        source_id: 'py_manual_before',
        source_type: 'payment',
        source_payment_id: 'py_manual_before',
      },
    ]);
    expect(await sales()).toEqual([{ day: '2026-11-01', amount: 1_600 }]);
    await pool.query(`delete from payout_sync_accounts where account_id = 'acc_9'`);
  });

  it('are not read before release has counted the stored rows', async () => {
    await pool.query(`update movement_days_zone set time_zone = 'America/New_York', complete = false`);
    expect(await listKeptDays(pool, null, new Date('2026-11-04T00:00:00Z'), 'America/New_York')).toBeNull();
  });
});
