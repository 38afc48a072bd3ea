import type { Backfill } from './backfill.ts';

/** The backfill after which the close reads the payments awaiting payout from `payment_payouts`. */
export const PAYMENT_PAYOUTS_BACKFILL = '0038_payment_payouts';

/**
 * The backfills `release` runs, in order, after the migrations. A backfill ships in the release whose
 * migration added the columns it fills, and the code of that release already writes them for new rows
 * (docs/operations.md, "Upgrading and migrations"). A finished backfill stays listed: it is skipped.
 */
export const BACKFILLS: readonly Backfill[] = [
  {
    // Each refund's payment's account key (migration 0034; the projection writes it: copyRefundAccountKeys).
    name: '0034_refund_account_keys',
    table: 'refunds',
    key: 'id',
    keyType: 'text',
    update: `update refunds r set account_type = p.account_type, account_id = p.account_id, currency = p.currency
               from payments p
              where r.id between $1::text and $2::text and r.account_id is null and p.id = r.payment_id`,
    batchSize: 2000,
  },
  {
    // Each stored payment's facts, first payout and ledger lines (migration 0038): the triggers keep what is
    // written since, so a batch sets the facts only of payments no write has reached yet, adds the earliest
    // payout to all, and adds the ledger lines they do not count yet.
    name: PAYMENT_PAYOUTS_BACKFILL,
    table: 'payments',
    key: 'id',
    keyType: 'text',
    update: `insert into payment_payouts as k (payment_id, known, account_type, account_id, currency, status, amount,
                                              net, created_at, at, settled, first_payout_at, ledger_lines)
             select p.id, true, f.*, o.first_payout_at, c.lines
               from payments p cross join lateral payment_payout_facts(p) f
               left join first_payouts_of(array(select id from payments
                                                 where id between $1::text and $2::text)) o on o.payment_id = p.id
               join uncounted_ledger_lines(array(select id from payments
                                                  where id between $1::text and $2::text)) c on c.payment_id = p.id
              where p.id between $1::text and $2::text
             on conflict (payment_id) do update
               set known = true, first_payout_at = least(k.first_payout_at, excluded.first_payout_at),
                  ledger_lines = k.ledger_lines + excluded.ledger_lines,
                  account_type = case when k.known then k.account_type else excluded.account_type end,
                  account_id = case when k.known then k.account_id else excluded.account_id end,
                  currency = case when k.known then k.currency else excluded.currency end,
                  status = case when k.known then k.status else excluded.status end,
                  amount = case when k.known then k.amount else excluded.amount end,
                  net = case when k.known then k.net else excluded.net end,
                  created_at = case when k.known then k.created_at else excluded.created_at end,
                  at = case when k.known then k.at else excluded.at end,
                  settled = case when k.known then k.settled else excluded.settled end`,
    batchSize: 2000,
  },
];
