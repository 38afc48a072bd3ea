import type pg from 'pg';
import { expect } from 'vitest';
import { insertPayments, insertPayoutLines, insertPayouts } from '../payouts/payoutRows.ts';

// Writes to payments, payouts, payout lines and the provider's ledger lines as the projection and the payout
// sync make them (one statement for many rows included), and the check that `payment_payouts` (migration 0038)
// says what the rows say.

export const payment = (db: pg.Pool | pg.PoolClient, id: string, fields: Record<string, unknown> = {}) =>
  insertPayments(db, [{ id, amount: 1_000, created_at: '2024-06-05T00:00:00Z', ...fields }]);

export const payout = (db: pg.Pool | pg.PoolClient, id: string, createdAt: string | null) =>
  insertPayouts(db, [{ id, amount: 0, created_at: createdAt }]);

/** Lines of one statement: each `[line id, payout id, kind, payment id]`. */
export const lines = async (db: pg.Pool | pg.PoolClient, rows: [string, string, string, string | null][]) => {
  if (rows.length > 0)
    await insertPayoutLines(
      db,
      rows.map(([id, payoutId, kind, paymentId]) => ({
        id,
        payout_id: payoutId,
        kind,
        txn_type: 'seller_payment',
        amount: 1000,
        source_id: paymentId,
        source_type: 'payment',
        source_payment_id: paymentId,
      })),
    );
};

/**
 * Every payment or line source with what the rows say of it, against what `payment_payouts` keeps: the ledger
 * lines counted for each stored payment (the close reads no other's).
 */
export async function expectKeptAsRows(db: pg.Pool) {
  const fromRows = await db.query(
    `with ids as (select id from payments union select source_payment_id from payout_lines
                   where kind = 'payment' and source_payment_id is not null)
     select * from (
       select ids.id as payment_id, p.id is not null as known, f.*,
              (select min(o.created_at) from payout_lines l join payouts o on o.id = l.payout_id
                where l.source_payment_id = ids.id and l.kind = 'payment') as first_payout_at,
              case when p.id is not null
                   then (select count(*)::int from provider_ledger_lines l where l.source_payment_id = ids.id)
              end as ledger_lines
         from ids left join payments p on p.id = ids.id
         left join lateral payment_payout_facts(p) f on p.id is not null) e
      where known or first_payout_at is not null
      order by 1`,
  );
  const kept = await db.query(
    `select payment_id, known, account_type, account_id, currency, status, amount, net, created_at, at,
            settled, first_payout_at, case when known then ledger_lines end as ledger_lines
       from payment_payouts where known or first_payout_at is not null order by 1`,
  );
  expect(kept.rows).toEqual(fromRows.rows);
}

/**
 * Lines of the provider's ledger in one statement: each `[line id, payment id, payout id, kind]` (a sale's line
 * unless a kind is given).
 */
export const ledgerLines = async (
  db: pg.Pool | pg.PoolClient,
  rows: [string, string | null, string | null, string?][],
) => {
  if (rows.length > 0)
    await db.query(
      `insert into provider_ledger_lines (account_id, id, payout_id, txn_type, kind, net, currency, source_id,
                                          source_type, source_payment_id, created_at, listed_at)
       select 'acc_1', l.id, l.payout, 'seller_payment', l.kind, 1000, 'usd', l.payment, 'payment', l.payment,
              '2024-06-02T00:00:00Z', now()
         from jsonb_to_recordset($1::jsonb) as l (id text, payment text, payout text, kind text)`,
      [
        JSON.stringify(
          rows.map(([id, paymentId, payoutId, kind]) => ({
            id,
            payment: paymentId,
            payout: payoutId,
            kind: kind ?? 'payment',
          })),
        ),
      ],
    );
};
