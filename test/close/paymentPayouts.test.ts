import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sumProviderHeld } from '../../src/close/tieOutQueries.ts';
import { listUnpaidPayments } from '../../src/close/unpaidPaymentQueries.ts';
import { runBackfills } from '../../src/db/backfill.ts';
import { BACKFILLS, PAYMENT_PAYOUTS_BACKFILL } from '../../src/db/backfills.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { expectKeptAsRows, ledgerLines, lines, payment, payout } from './paymentPayoutRows.ts';

// The payments' first payouts kept as payments, payouts and lines are written (migration 0038) against what the
// rows say, for random writes in any order; then the close's payments awaiting payout and the provider's held
// lines from them, and the backfill that counts the rows stored before the triggers.
let url: string;
let pool: pg.Pool;
const log = createLogger('silent');
const PAYMENTS = ['py_1', 'py_2', 'py_3'];
const PAYOUTS = ['po_1', 'po_2', 'po_3'];
const LINES = ['bt_1', 'bt_2', 'bt_3'];
const LEDGER_LINES = ['lg_1', 'lg_2', 'lg_3'];
const INSTANTS = ['2024-06-01T00:00:00Z', '2024-06-10T00:00:00Z', '2024-06-20T00:00:00Z', null];

const write = fc.oneof(
  fc.record({
    table: fc.constant('payments' as const),
    id: fc.constantFrom(...PAYMENTS),
    status: fc.constantFrom('succeeded', 'pending', 'failed', 'refunded', 'disputed'),
    capture_strategy: fc.constantFrom('automatic', 'manual'),
    succeeded_at: fc.constantFrom(...INSTANTS),
    failed_at: fc.constantFrom(...INSTANTS),
    created_at: fc.constantFrom(...INSTANTS.slice(0, 3)),
    amount: fc.integer({ min: 1, max: 10_000 }),
    fees_processing: fc.integer({ min: 0, max: 100 }),
  }),
  fc.record({
    table: fc.constant('payouts' as const),
    id: fc.constantFrom(...PAYOUTS),
    created_at: fc.constantFrom(...INSTANTS),
  }),
  fc.record({
    table: fc.constant('payout_lines' as const),
    rows: fc.array(
      fc.tuple(
        fc.constantFrom(...LINES),
        fc.constantFrom(...PAYOUTS),
        fc.constantFrom('payment', 'refund'),
        fc.constantFrom(...PAYMENTS, null),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({
    table: fc.constant('provider_ledger_lines' as const),
    rows: fc.array(
      fc.tuple(
        fc.constantFrom(...LEDGER_LINES),
        fc.constantFrom(...PAYMENTS, null),
        fc.constantFrom(null, 'po_1', 'po_x'),
        fc.constantFrom('payment', 'fee', 'ach_return'),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({
    table: fc.constantFrom(
      'delete payouts' as const,
      'delete payout_lines' as const,
      'delete payments' as const,
      'delete provider_ledger_lines' as const,
    ),
    id: fc.constantFrom(...PAYMENTS, ...PAYOUTS, ...LINES, ...LEDGER_LINES),
  }),
);
type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

async function apply(db: pg.Pool, change: Write) {
  if (change.table === 'payments') {
    const { table: _table, id, ...fields } = change;
    const updated = await db.query(
      `update payments set status = $2, capture_strategy = $3, succeeded_at = $4, created_at = $5, amount = $6,
              fees_processing = $7, failed_at = $8 where id = $1`,
      [
        id,
        fields.status,
        fields.capture_strategy,
        fields.succeeded_at,
        fields.created_at,
        fields.amount,
        fields.fees_processing,
        fields.failed_at,
      ],
    );
    if (updated.rowCount === 0) await payment(db, id, fields);
  } else if (change.table === 'payouts') {
    const updated = await db.query('update payouts set created_at = $2 where id = $1', [
      change.id,
      change.created_at,
    ]);
    if (updated.rowCount === 0) await payout(db, change.id, change.created_at);
  } else if (change.table === 'payout_lines') {
    // A line written again may move to another payout or payment, as the projection's upsert writes it.
    await writeAgain(
      db,
      'payout_lines',
      change.rows,
      ['id', 'payout', 'kind', 'payment'],
      'payout_id = v.payout, kind = v.kind, source_id = v.payment, source_payment_id = v.payment',
      (rows) => lines(db, rows),
    );
  } else if (change.table === 'provider_ledger_lines') {
    // A line listed again may name another payment, or move into a payout, as a listing's upsert writes it.
    await writeAgain(
      db,
      'provider_ledger_lines',
      change.rows,
      ['id', 'payment', 'payout', 'kind'],
      'source_id = v.payment, source_payment_id = v.payment, payout_id = v.payout, kind = v.kind',
      (rows) => ledgerLines(db, rows),
    );
  } else {
    await db.query(`delete from ${change.table.slice(7)} where id = $1`, [change.id]);
  }
}

/**
 * Lines of one statement, a line written twice in it written once (the last wins, as an upsert writes it): those
 * stored already updated in one statement (`set`, from `v`: each row's values named by `fields`), the others
 * inserted by `insert`.
 */
async function writeAgain<Row extends [string, ...(string | null | undefined)[]]>(
  db: pg.Pool,
  table: 'payout_lines' | 'provider_ledger_lines',
  written: Row[],
  fields: string[],
  set: string,
  insert: (rows: Row[]) => Promise<void>,
) {
  const rows = [...new Map(written.map((row) => [row[0], row])).values()];
  const { rows: found } = await db.query(`select id from ${table} where id = any($1::text[])`, [
    rows.map((row) => row[0]),
  ]);
  const stored = new Set(found.map((row) => row.id));
  await db.query(
    `update ${table} l set ${set}
       from jsonb_to_recordset($1::jsonb) as v (${fields.map((field) => `${field} text`).join(', ')})
      where l.id = v.id`,
    [
      JSON.stringify(
        rows
          .filter((row) => stored.has(row[0]))
          .map((row) => Object.fromEntries(fields.map((field, index) => [field, row[index]]))),
      ),
    ],
  );
  await insert(rows.filter((row) => !stored.has(row[0])));
}

beforeAll(async () => {
  url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url });
  await pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ('acc_1', '2024-06-30T00:00:00Z', '2024-05-01T00:00:00Z', null);
     insert into provider_ledger_listings (account_id, listed_at, full_listed_at, lines)
     values ('acc_1', '2024-06-30T00:00:00Z', '2024-06-30T00:00:00Z', 0)`,
  );
});
afterAll(() => pool.end());

const reset = () => pool.query('truncate payments, payouts, payout_lines, provider_ledger_lines');
const setKept = (finished: boolean) =>
  pool.query(`update schema_backfills set finished_at = case when $2 then now() end where name = $1`, [
    PAYMENT_PAYOUTS_BACKFILL,
    finished,
  ]);

describe('the payments’ first payouts, kept as the rows are written', () => {
  it('say what the rows say after any writes, and the close’s payments awaiting payout and provider’s held lines are the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
        await reset();
        for (const change of writes) await apply(pool, change);
        await expectKeptAsRows(pool);
        for (const end of ['2024-06-10T00:00:00Z', '2024-06-15T00:00:00Z', '2024-07-01T00:00:00Z']) {
          await setKept(false);
          const fromRows = await listUnpaidPayments(pool, new Date(end), 100);
          const heldFromRows = await sumProviderHeld(pool, new Date(end));
          await setKept(true);
          expect(await listUnpaidPayments(pool, new Date(end), 100)).toEqual(fromRows);
          expect(await sumProviderHeld(pool, new Date(end))).toEqual(heldFromRows);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('give a returned payment’s held return line its failure, and its sale line the sale, on either path', async () => {
    await reset();
    await payment(pool, 'py_1', {
      status: 'failed',
      created_at: '2024-06-05T00:00:00Z',
      succeeded_at: '2024-06-05T00:00:00Z',
      failed_at: '2024-06-20T00:00:00Z',
    });
    await ledgerLines(pool, [
      ['lg_1', 'py_1', null, 'payment'],
      ['lg_2', 'py_1', null, 'ach_return'],
    ]);
    for (const kept of [false, true]) {
      await setKept(kept);
      // At 15 June the sale is held; the return counts on 20 June, after it.
      expect(await sumProviderHeld(pool, new Date('2024-06-15T00:00:00Z'))).toEqual([
        { account_id: 'acc_1', currency: 'usd', provider_held_end: 1_000, lines_without_item: [] },
      ]);
    }
  });

  it('are emptied with the rows they come from, and count the ledger again as the rebuild stores them', async () => {
    await reset();
    await payment(pool, 'py_1');
    await payout(pool, 'po_1', '2024-06-01T00:00:00Z');
    await lines(pool, [['bt_1', 'po_1', 'payment', 'py_1']]);
    await ledgerLines(pool, [['lg_1', 'py_1', null]]);
    expect((await pool.query('select count(*)::int as n from payment_payouts')).rows[0].n).toBe(1);
    await pool.query('truncate payments, payouts, payout_lines');
    expect((await pool.query('select count(*)::int as n from payment_payouts')).rows[0].n).toBe(0);
    // The provider's ledger is not projected: it stays, and the payment stored again counts its line.
    await payment(pool, 'py_1');
    await expectKeptAsRows(pool);
    expect(
      (await pool.query(`select ledger_lines from payment_payouts where payment_id = 'py_1'`)).rows,
    ).toEqual([{ ledger_lines: 1 }]);
  });

  it('count the rows stored before the triggers, while payments and lines go on being written', async () => {
    await reset();
    await pool.query(`alter table payments disable trigger payments_payouts_inserted`);
    await pool.query(`alter table payout_lines disable trigger payout_lines_payouts_inserted`);
    for (let n = 0; n < 30; n++) await payment(pool, `py_${String(n).padStart(2, '0')}`);
    await payout(pool, 'po_1', '2024-06-10T00:00:00Z');
    await lines(pool, [
      ['bt_a', 'po_1', 'payment', 'py_03'],
      ['bt_b', 'po_1', 'payment', 'py_40'],
      ['bt_c', 'po_1', 'payment', 'py_23'],
    ]);
    await pool.query(
      `alter table provider_ledger_lines disable trigger provider_ledger_lines_payouts_inserted`,
    );
    await ledgerLines(pool, [
      ['lg_a', 'py_04', null],
      ['lg_b', 'py_04', 'po_1'],
      ['lg_c', 'py_41', null],
      ['lg_d', 'py_21', null],
    ]);
    await pool.query(`alter table payments enable trigger payments_payouts_inserted`);
    await pool.query(`alter table payout_lines enable trigger payout_lines_payouts_inserted`);
    await pool.query(
      `alter table provider_ledger_lines enable trigger provider_ledger_lines_payouts_inserted`,
    );
    await pool.query(`update schema_backfills set last_key = null, finished_at = null where name = $1`, [
      PAYMENT_PAYOUTS_BACKFILL,
    ]);
    const backfill = BACKFILLS.filter((item) => item.name === PAYMENT_PAYOUTS_BACKFILL).map((item) => ({
      ...item,
      batchSize: 7,
    }));
    let batch = 0;
    await runBackfills(url, log, backfill, {
      afterBatch: async () => {
        batch += 1;
        // Behind the walk, ahead of it, and a payment whose line was stored before it.
        await pool.query(`update payments set status = 'refunded' where id = $1`, [`py_0${batch}`]);
        await pool.query(`update payments set amount = 5 where id = $1`, [`py_2${batch}`]);
        await payout(pool, `po_b${batch}`, `2024-06-0${batch}T00:00:00Z`);
        await lines(pool, [[`bt_b${batch}`, `po_b${batch}`, 'payment', `py_1${batch}`]]);
        await ledgerLines(pool, [[`lg_b${batch}`, `py_2${batch}`, null]]);
        if (batch === 2) await payment(pool, 'py_40');
        if (batch === 3) await payment(pool, 'py_41');
      },
    });
    expect(batch).toBe(5);
    await expectKeptAsRows(pool);
  });
});
