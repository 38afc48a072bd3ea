import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listUnpaidPayments } from '../../src/close/unpaidPaymentQueries.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { insertPayments, insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

// The payments of acc_1 that no payout Tally knows contains, at the end of June, against the provider's ledger.
// The lookup reads the provider's held lines first and the whole ledger only for what those leave: each kind of
// line the provider may have for a payment Tally still holds is here.
let pool: pg.Pool;
const END = new Date('2024-07-01T00:00:00Z');
const ledgerLine = (id: string, payment: string, payout: string | null) =>
  pool.query(
    `insert into provider_ledger_lines (account_id, id, payout_id, txn_type, kind, net, currency, source_id,
                                        source_type, source_payment_id, created_at, listed_at)
     values ('acc_1', $1, $2, 'seller_payment', 'payment', 1000, 'usd', $3, 'payment', $3, '2024-06-02T00:00:00Z',
             '2024-06-30T00:00:00Z')`,
    [id, payout, payment],
  );

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase() });
  await pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ('acc_1', '2024-06-30T00:00:00Z', '2024-05-01T00:00:00Z', null);
     insert into provider_ledger_listings (account_id, listed_at, full_listed_at, lines)
     values ('acc_1', '2024-06-30T00:00:00Z', '2024-06-30T00:00:00Z', 4)`,
  );
  await insertPayments(pool, [
    { id: 'py_held_by_both', amount: 1_000, created_at: '2024-06-02T00:00:00Z' },
    { id: 'py_paid_per_provider', amount: 2_000, created_at: '2024-06-03T00:00:00Z' },
    { id: 'py_refund_line_only', amount: 3_000, created_at: '2024-06-04T00:00:00Z' },
    { id: 'py_no_line', amount: 4_000, created_at: '2024-06-05T00:00:00Z' },
    { id: 'py_paid_by_tally', amount: 5_000, created_at: '2024-06-06T00:00:00Z' },
  ]);
  await insertPayouts(pool, [
    { id: 'po_1', amount: 5_000, created_at: '2024-06-10T00:00:00Z', line_count: 1 },
  ]);
  await insertPayoutLines(pool, [
    {
      id: 'bt_tally',
      payout_id: 'po_1',
      txn_type: 'seller_payment',
      kind: 'payment',
      amount: 5_000,
      net: 5_000,
      source_id: 'py_paid_by_tally',
      source_type: 'payment',
      source_payment_id: 'py_paid_by_tally',
    },
  ]);
  await ledgerLine('bt_held', 'py_held_by_both', null);
  // In a payout Tally has not listed: the provider has a line for it, though not a held one.
  await ledgerLine('bt_paid', 'py_paid_per_provider', 'po_unlisted');
  await pool.query(
    `insert into provider_ledger_lines (account_id, id, payout_id, txn_type, kind, net, currency, source_id,
                                        source_type, source_payment_id, created_at, listed_at)
     values ('acc_1', 'bt_refund', null, 'seller_payment_refund', 'refund', -500, 'usd', 're_1', 'refund',
             'py_refund_line_only', '2024-06-04T00:00:00Z', '2024-06-30T00:00:00Z')`,
  );
});
afterAll(() => pool.end());

describe('the payments awaiting payout at a period’s end', () => {
  it('are summed per account key, and only those the provider lists no line at all for are without one', async () => {
    const unpaid = await listUnpaidPayments(pool, END, 100);
    expect(unpaid.awaiting).toEqual([
      { account_type: 'live', account_id: 'acc_1', currency: 'usd', payments: 4, amount: 10_000 },
    ]);
    expect(unpaid.withoutLine).toEqual([
      {
        account_id: 'acc_1',
        currency: 'usd',
        type: 'payment',
        id: 'py_no_line',
        amount: 4_000,
        at: new Date('2024-06-05T00:00:00Z'),
      },
    ]);
  });
});
