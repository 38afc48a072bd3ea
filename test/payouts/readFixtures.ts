import type { Queryable } from '../../src/db/pool.ts';
import { recordFindings } from '../../src/findings/recordFindings.ts';

/**
 * Payouts, lines, checks, judgements, bank credits and findings as the write side leaves them, inserted by SQL
 * so the read side is tested on its own. Every row sets the columns the read side shows.
 */
type Payout = {
  id: string;
  account_id: string;
  amount: number;
  currency: string;
  status: string;
  deposits_at: string | null;
  created_at: string;
  updated_at: string;
  line_count: number | null;
  lines_complete: boolean;
  description?: string;
};

export async function insertPayout(db: Queryable, p: Payout) {
  await db.query(
    `insert into payouts (id, account_id, amount, currency, status, payout_type, delivery_method, description,
                          deposits_at, payments_count, payments_total, refunds_count, refunds_total, fees_total,
                          other_total, bank_account, metadata, created_at, updated_at, event_row_id, line_count,
                          lines_complete, projected_at)
     values ($1, $2, $3, $4, $5, 'cc', 'standard', $6, $7, 2, 15000, 1, 1000, 290, 0,
             '{"last4": "6789"}', '{"batch": "b1"}', $8, $9, 1, $10, $11, $9)`,
    [
      p.id,
      p.account_id,
      p.amount,
      p.currency,
      p.status,
      p.description ?? `payout ${p.id}`,
      p.deposits_at,
      p.created_at,
      p.updated_at,
      p.line_count,
      p.lines_complete,
    ],
  );
}

type Line = {
  id: string;
  payout_id: string;
  txn_type: string;
  kind: string;
  amount: number;
  fee?: number;
  source_id: string | null;
  source_type: string | null;
  source_payment_id: string | null;
  created_at: string;
};

export async function insertLine(db: Queryable, l: Line, accountId = 'acc_a', currency = 'usd') {
  const fee = l.fee ?? 0;
  await db.query(
    `insert into payout_lines (id, payout_id, account_id, txn_type, kind, amount, fee, net, currency, source_id,
                               source_type, source_payment_id, financial_transaction_id, description,
                               available_on, created_at, updated_at, event_row_id, projected_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'ft_' || $1, 'line ' || $1, $13, $13, $13, 2, $13)`,
    [
      l.id,
      l.payout_id,
      accountId,
      l.txn_type,
      l.kind,
      l.amount,
      fee,
      l.amount - fee,
      currency,
      l.source_id,
      l.source_type,
      l.source_payment_id,
      l.created_at,
    ],
  );
}

export async function insertCheck(
  db: Queryable,
  c: {
    line_id: string;
    payout_id: string;
    matched_type: string | null;
    matched_id: string | null;
    status: string;
    expected: number | null;
    actual: number | null;
  },
) {
  await db.query(
    `insert into payout_line_checks (line_id, payout_id, matched_type, matched_id, status, expected, actual, checked_at)
     values ($1, $2, $3, $4, $5, $6, $7, '2026-11-02T13:00:00Z')`,
    [c.line_id, c.payout_id, c.matched_type, c.matched_id, c.status, c.expected, c.actual],
  );
}

export async function insertJudgement(
  db: Queryable,
  payoutId: string,
  accountId: string,
  judgedAt: string,
  checked: number,
  mismatched: number,
) {
  await db.query(
    `insert into payout_reconciliations (payout_id, account_id, judged_at, lines_checked, lines_mismatched)
     values ($1, $2, $3, $4, $5)`,
    [payoutId, accountId, judgedAt, checked, mismatched],
  );
}

/** A statement with one credit matched to the payout; returns the bank line's id. */
export async function insertBankCredit(
  db: Queryable,
  credit: {
    payout_id: string | null;
    amount: number;
    value_date: string;
    reference: string;
    description: string;
  },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `with statement as (
       insert into bank_statements (format, bank_account, file_sha256, covers_from, covers_to, currencies, lines,
                                    credits, duplicates, imported_by, imported_at)
       values ('csv', 'DE001', sha256(random()::text::bytea), $2, $2, '{usd}', 1, 1, 0, 'alice', now())
       returning id)
     insert into bank_lines (statement_id, bank_account, value_date, amount, currency, description, reference, rank,
                             payout_id)
     select id, 'DE001', $2, $3, 'usd', $4, $5, 1, $1 from statement
     returning id`,
    [credit.payout_id, credit.value_date, credit.amount, credit.description, credit.reference],
  );
  return rows[0]?.id as number;
}

export async function insertPayment(
  db: Queryable,
  p: {
    id: string;
    account_id: string;
    account_type: string;
    amount: number;
    currency: string;
    created_at: string;
  },
) {
  await db.query(
    `insert into payments (id, account_id, account_type, amount, currency, status, created_at, updated_at,
                           event_row_id, snapshot)
     values ($1, $2, $3, $4, $5, 'succeeded', $6, $6, 1, '{}')`,
    [p.id, p.account_id, p.account_type, p.amount, p.currency, p.created_at],
  );
}

export async function insertFeeAndRefund(db: Queryable) {
  await db.query(
    `insert into payment_fees (id, payment_id, type, amount, currency, snapshot_updated_at)
     values ('pyfee_r1', 'py_r1', 'processing_fee', 300, 'usd', '2026-11-01T10:00:00Z');
     insert into refunds (id, payment_id, amount, reason, status, created_at, updated_at, event_row_id, snapshot)
     values ('re_r1', 'py_r1', 1000, 'requested_by_customer', 'succeeded', '2026-11-01T11:00:00Z',
             '2026-11-01T11:00:00Z', 1, '{}');
     insert into returned_fees (id, refund_id, payment_fee_id, type, returned_amount, original_amount,
                                remaining_amount, currency)
     values ('rfee_r1', 're_r1', 'pyfee_r1', 'processing_fee', 30, 300, 270, 'usd')`,
  );
}

/** A payout sync of the account at `syncedAt`, its first full listing going the default 35 days back. */
export async function insertSyncAccount(db: Queryable, accountId: string, syncedAt: string) {
  await db.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ($1, $2, $2::timestamptz - interval '35 days', $2)`,
    [accountId, syncedAt],
  );
}

/** One finding run, through the findings stage like the payout reconciliation records them. */
export async function recordRun(
  db: Queryable,
  scope: string,
  at: string,
  account: { id: string; currency: string },
  drafts: Parameters<typeof recordFindings>[2],
) {
  await recordFindings(
    db,
    { scope, accountId: account.id, currency: account.currency, now: new Date(at) },
    drafts,
  );
}
