import type pg from 'pg';
import type { Queryable } from '../../src/db/pool.ts';

type Row = Record<string, unknown>;

// Rows written straight into a table, each a column → value object over the table's defaults.
async function insertRows(pool: Queryable, table: string, defaults: Row, rows: Row[]): Promise<void> {
  await pool.query(`insert into ${table} select * from jsonb_populate_recordset(null::${table}, $1::jsonb)`, [
    JSON.stringify(rows.map((row) => ({ ...defaults, ...row }))),
  ]);
}

const PROJECTED = { event_row_id: 1, projected_at: '2024-06-01T00:00:00Z' };

/** A paid usd payout of acc_1 with every line loaded, unless overridden. */
export const insertPayouts = (pool: Queryable, rows: Row[]) =>
  insertRows(
    pool,
    'payouts',
    {
      ...PROJECTED,
      account_id: 'acc_1',
      currency: 'usd',
      status: 'paid',
      payout_type: 'cc',
      lines_complete: true,
      created_at: '2024-06-08T00:00:00Z',
      updated_at: '2024-06-08T00:00:00Z',
    },
    rows,
  );

/** Lines with net = amount - fee unless given. */
export const insertPayoutLines = (pool: Queryable, rows: Row[]) =>
  insertRows(
    pool,
    'payout_lines',
    { ...PROJECTED, account_id: 'acc_1', currency: 'usd', fee: 0 },
    rows.map((row) => ({ net: Number(row.amount) - Number(row.fee ?? 0), ...row })),
  );

/** Succeeded usd card payments of acc_1 created 2024-06-01, unless overridden. */
export const insertPayments = (pool: Queryable, rows: Row[]) =>
  insertRows(
    pool,
    'payments',
    {
      account_id: 'acc_1',
      account_type: 'live',
      currency: 'usd',
      status: 'succeeded',
      method_kind: 'card',
      created_at: '2024-06-01T00:00:00Z',
      updated_at: '2024-06-01T00:00:00Z',
      event_row_id: 1,
      snapshot: {},
      expedited: false,
      status_terminal: true,
      fees_updated_at: '2024-06-01T00:00:00Z',
      fees_event_row_id: 1,
      // The payout rules read the fee rows; the report's fee totals are left at zero.
      fees_total: 0,
      fees_processing: 0,
      fees_platform: 0,
      fees_other: 0,
      fees_configured: 0,
      fees_explicit: 0,
    },
    rows,
  );

export const insertPaymentFees = (pool: pg.Pool, rows: Row[]) =>
  insertRows(
    pool,
    'payment_fees',
    { type: 'processing_fee', snapshot_updated_at: '2024-06-01T00:00:00Z' },
    rows,
  );

export const insertRefunds = (pool: pg.Pool, rows: Row[]) =>
  insertRows(
    pool,
    'refunds',
    {
      status: 'succeeded',
      created_at: '2024-06-02T00:00:00Z',
      updated_at: '2024-06-02T00:00:00Z',
      event_row_id: 1,
      snapshot: {},
      returned_fees_updated_at: '2024-06-02T00:00:00Z',
      returned_fees_event_row_id: 1,
    },
    rows,
  );

export const insertReturnedFees = (pool: pg.Pool, rows: Row[]) =>
  insertRows(pool, 'returned_fees', { type: 'processing_fee' }, rows);

/**
 * The payout sync's record of an account: it lists the account's payouts, and its first full listing went
 * the default 35 days back from `newestPayoutCreatedAt`.
 */
export const insertSyncedAccount = (pool: pg.Pool, accountId: string, newestPayoutCreatedAt: string) =>
  pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ($1, $2, $2::timestamptz - interval '35 days', $2)`,
    [accountId, newestPayoutCreatedAt],
  );

export type StoredFinding = {
  code: string;
  severity: string;
  status: string;
  subject_type: string;
  subject_id: string;
  account_id: string | null;
  currency: string | null;
  expected: unknown;
  actual: unknown;
  details: Record<string, unknown>;
  at_stake: number | null;
};

/** Every finding, by code then subject then id. */
export async function listAllFindings(pool: pg.Pool): Promise<StoredFinding[]> {
  const { rows } = await pool.query<StoredFinding>(
    `select code, severity, status, subject_type, subject_id, account_id, currency, expected, actual, details,
            at_stake::int as at_stake
       from findings order by code, subject_id, id`,
  );
  return rows;
}
