import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BACKFILLS, PAYMENT_PAYOUTS_BACKFILL } from '../../src/db/backfills.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { expectKeptAsRows, ledgerLines, lines, payment, payout } from './paymentPayoutRows.ts';

// Two transactions writing the two sides of one payment's first payout at once, neither seeing the other's rows
// until it commits: the second waits on the kept row and adds what it knows after the first commits.
let pool: pg.Pool;
let first: pg.PoolClient;
let second: pg.PoolClient;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 4 });
  first = await pool.connect();
  second = await pool.connect();
});
afterAll(async () => {
  first.release();
  second.release();
  await pool.end();
});
beforeEach(() => pool.query('truncate payments, payouts, payout_lines, provider_ledger_lines'));

/** Resolves once `client`'s backend waits for a lock another transaction holds. */
async function waitingForLock(client: pg.PoolClient) {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  return async () => {
    for (let tries = 0; tries < 200; tries++) {
      const waiting = await pool.query(
        `select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`,
        [rows[0]?.pid],
      );
      if (waiting.rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the second transaction never waited');
  };
}

/**
 * `firstWrite` in a transaction left open, then `secondWrite` in another, which must wait for it; then the first
 * commits, and the second once its write is done.
 */
async function race(
  firstWrite: (db: pg.PoolClient) => Promise<unknown>,
  secondWrite: (db: pg.PoolClient) => Promise<unknown>,
) {
  const waited = await waitingForLock(second);
  await first.query('begin');
  await firstWrite(first);
  await second.query('begin');
  const written = secondWrite(second);
  await waited();
  await first.query('commit');
  await written;
  await second.query('commit');
}

const firstPayoutOf = async (id: string) =>
  (await pool.query('select first_payout_at from payment_payouts where payment_id = $1', [id])).rows[0]
    ?.first_payout_at;

describe('a payment’s first payout written from both sides at once', () => {
  it('a line first, then its payment: the payment waits and keeps the line’s payout', async () => {
    await payout(pool, 'po_1', '2024-06-10T00:00:00Z');
    await race(
      (db) => lines(db, [['bt_1', 'po_1', 'payment', 'py_1']]),
      (db) => payment(db, 'py_1'),
    );
    expect(await firstPayoutOf('py_1')).toEqual(new Date('2024-06-10T00:00:00Z'));
    await expectKeptAsRows(pool);
  });

  it('a payment first, then a line: the line waits and adds its payout', async () => {
    await payout(pool, 'po_1', '2024-06-10T00:00:00Z');
    await race(
      (db) => payment(db, 'py_1'),
      (db) => lines(db, [['bt_1', 'po_1', 'payment', 'py_1']]),
    );
    expect(await firstPayoutOf('py_1')).toEqual(new Date('2024-06-10T00:00:00Z'));
    await expectKeptAsRows(pool);
  });

  it('a ledger line first, then its payment: the payment waits and the line is counted once', async () => {
    await race(
      (db) => ledgerLines(db, [['lg_1', 'py_1', null]]),
      (db) => payment(db, 'py_1'),
    );
    expect(
      (await pool.query(`select ledger_lines from payment_payouts where payment_id = 'py_1'`)).rows,
    ).toEqual([{ ledger_lines: 1 }]);
    await expectKeptAsRows(pool);
  });

  it('a line moved to a later payout while another payout’s line is written: the earliest that remains wins', async () => {
    await payment(pool, 'py_1');
    await payout(pool, 'po_1', '2024-06-01T00:00:00Z');
    await payout(pool, 'po_2', '2024-06-05T00:00:00Z');
    await payout(pool, 'po_3', '2024-06-20T00:00:00Z');
    await lines(pool, [['bt_1', 'po_1', 'payment', 'py_1']]);
    await race(
      (db) => lines(db, [['bt_2', 'po_2', 'payment', 'py_1']]),
      (db) => db.query(`update payout_lines set payout_id = 'po_3' where id = 'bt_1'`),
    );
    expect(await firstPayoutOf('py_1')).toEqual(new Date('2024-06-05T00:00:00Z'));
    await expectKeptAsRows(pool);
  });

  it('the backfill’s batch never puts back what a payment said before a write it waited for', async () => {
    await pool.query('alter table payments disable trigger payments_payouts_inserted');
    await payment(pool, 'py_1', { amount: 1_000 });
    await pool.query('alter table payments enable trigger payments_payouts_inserted');
    const backfill = BACKFILLS.find((item) => item.name === PAYMENT_PAYOUTS_BACKFILL);
    await race(
      (db) => db.query(`update payments set amount = 2000 where id = 'py_1'`),
      (db) => db.query(backfill?.update ?? '', ['py_1', 'py_1']),
    );
    expect((await pool.query(`select amount from payment_payouts where payment_id = 'py_1'`)).rows).toEqual([
      { amount: 2000 },
    ]);
    await expectKeptAsRows(pool);
  });
});
