import type { Queryable } from '../../db/pool.ts';

/** A page of payouts: keyset on (created_at, id), newest first; the keys are payout ids. */
export type PayoutPage = { limit: number; afterId: string | null; beforeId: string | null };

export type PayoutFilter = {
  status?: string | undefined;
  accountId?: string | undefined;
  /** deposits_at in [depositsAfter, depositsBefore) */
  depositsAfter?: Date | undefined;
  depositsBefore?: Date | undefined;
};

export type PayoutView = {
  id: string;
  account_id: string;
  amount: number;
  currency: string;
  status: string;
  payout_type: string | null;
  delivery_method: string | null;
  description: string | null;
  deposits_at: Date | null;
  payments_count: number | null;
  payments_total: number | null;
  refunds_count: number | null;
  refunds_total: number | null;
  fees_total: number | null;
  other_total: number | null;
  bank_account: unknown;
  metadata: unknown;
  created_at: Date | null;
  updated_at: Date | null;
  line_count: number | null;
  lines_complete: boolean;
  judged: boolean;
  bank_line_id: number | null;
  open_findings: number;
};

// Findings a person still has to look at: accepted ones have left the open counts.
const OPEN = `('open', 'acknowledged')`;

// A payout's findings are about the payout itself or one of its lines (ids of both are the provider's, so a
// subject id names one object whatever its subject type).
const FINDINGS_OF_PAYOUT = `(f.subject_id = p.id
        or f.subject_id in (select l.id from payout_lines l where l.payout_id = p.id))`;

const selectPayouts = (
  judgement = '',
) => `select p.id, p.account_id, p.amount, p.currency, p.status, p.payout_type, p.delivery_method,
       p.description, p.deposits_at, p.payments_count, p.payments_total, p.refunds_count, p.refunds_total,
       p.fees_total, p.other_total, p.bank_account, p.metadata, p.created_at, p.updated_at, p.line_count,
       p.lines_complete, r.payout_id is not null as judged,${judgement} b.id as bank_line_id,
       (select count(*)::int from findings f where f.status in ${OPEN} and ${FINDINGS_OF_PAYOUT}) as open_findings
  from payouts p
  left join payout_reconciliations r on r.payout_id = p.id
  left join bank_lines b on b.payout_id = p.id`;

const SORT_KEY = `(coalesce(p.created_at, '-infinity'::timestamptz), p.id)`;
const KEY_OF = (param: string) =>
  `(select coalesce(k.created_at, '-infinity'::timestamptz), k.id from payouts k where k.id = ${param})`;

/**
 * Payouts newest first (by the provider's created_at, then id), filtered, one page plus one row so the caller
 * knows whether more exist; with `beforeId`, oldest first (the caller reverses them).
 */
export async function listPayouts(db: Queryable, filter: PayoutFilter, page: PayoutPage) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<PayoutView>(
    `${selectPayouts()}
      where ($1::text is null or p.status = $1::text)
        and ($2::text is null or p.account_id = $2::text)
        and ($3::timestamptz is null or p.deposits_at >= $3::timestamptz)
        and ($4::timestamptz is null or p.deposits_at < $4::timestamptz)
        and ($5::text is null or ${SORT_KEY} < ${KEY_OF('$5::text')})
        and ($6::text is null or ${SORT_KEY} > ${KEY_OF('$6::text')})
      order by coalesce(p.created_at, '-infinity'::timestamptz) ${backwards ? 'asc' : 'desc'},
               p.id ${backwards ? 'asc' : 'desc'}
      limit $7::int`,
    [
      filter.status ?? null,
      filter.accountId ?? null,
      filter.depositsAfter ?? null,
      filter.depositsBefore ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}

/** One payout with its list fields and its last judgement (null while unjudged). */
export async function findPayout(db: Queryable, id: string) {
  const { rows } = await db.query<
    PayoutView & { judged_at: Date | null; lines_checked: number | null; lines_mismatched: number | null }
  >(
    `${selectPayouts(' r.judged_at, r.lines_checked, r.lines_mismatched,')}
      where p.id = $1::text`,
    [id],
  );
  return rows[0] ?? null;
}

export type PayoutLineView = {
  id: string;
  txn_type: string;
  kind: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  source_id: string | null;
  source_type: string | null;
  source_payment_id: string | null;
  financial_transaction_id: string | null;
  description: string | null;
  available_on: Date | null;
  created_at: Date | null;
  updated_at: Date | null;
  check_status: string | null;
  check_matched_type: string | null;
  check_matched_id: string | null;
  check_expected: number | null;
  check_actual: number | null;
  checked_at: Date | null;
  matched_payment_id: string | null;
  matched_refund_id: string | null;
  matched_fee_type: string | null;
  matched_amount: number | null;
  matched_currency: string | null;
  matched_status: string | null;
  matched_found: boolean;
};

/**
 * Every line of a payout in the provider's order (created_at, then id), each with its check and the Tally
 * object the check matched: the payment, the payment's fee, the refund, or the fee a refund returned.
 */
export async function listPayoutLines(db: Queryable, payoutId: string) {
  const { rows } = await db.query<PayoutLineView>(
    `select l.id, l.txn_type, l.kind, l.amount, l.fee, l.net, l.currency, l.source_id, l.source_type,
            l.source_payment_id, l.financial_transaction_id, l.description, l.available_on, l.created_at,
            l.updated_at, c.status as check_status, c.matched_type as check_matched_type,
            c.matched_id as check_matched_id, c.expected as check_expected, c.actual as check_actual,
            c.checked_at, m.payment_id as matched_payment_id, m.refund_id as matched_refund_id,
            m.fee_type as matched_fee_type, m.amount as matched_amount, m.currency as matched_currency,
            m.status as matched_status, m.payment_id is not null or m.refund_id is not null as matched_found
       from payout_lines l
       left join payout_line_checks c on c.line_id = l.id
       left join lateral (
         select py.id as payment_id, null::text as refund_id, null::text as fee_type, py.amount, py.currency,
                py.status
           from payments py where c.matched_type = 'payment' and py.id = c.matched_id
         union all
         select pf.payment_id, null, pf.type, pf.amount, coalesce(pf.currency, py.currency), null
           from payment_fees pf left join payments py on py.id = pf.payment_id
          where c.matched_type = 'payment_fee' and pf.id = c.matched_id
         union all
         select rf.payment_id, rf.id, null, rf.amount, py.currency, rf.status
           from refunds rf left join payments py on py.id = rf.payment_id
          where c.matched_type = 'refund' and rf.id = c.matched_id
         union all
         select r.payment_id, r.id, rt.type, rt.returned_amount, coalesce(rt.currency, py.currency), r.status
           from returned_fees rt join refunds r on r.id = rt.refund_id left join payments py on py.id = r.payment_id
          where c.matched_type = 'returned_fee' and rt.id = c.matched_id
       ) m on true
      where l.payout_id = $1::text
      order by l.created_at nulls first, l.id`,
    [payoutId],
  );
  return rows;
}

export type BankLineView = {
  id: number;
  statement_id: number;
  bank_account: string;
  value_date: string;
  amount: number;
  currency: string;
  description: string;
  reference: string;
};

/** The bank statement credit matched to the payout, or null. */
export async function findBankLineOfPayout(db: Queryable, payoutId: string): Promise<BankLineView | null> {
  const { rows } = await db.query<BankLineView>(
    `select id, statement_id, bank_account, to_char(value_date, 'YYYY-MM-DD') as value_date, amount, currency,
            description, reference
       from bank_lines where payout_id = $1::text`,
    [payoutId],
  );
  return rows[0] ?? null;
}

/** Findings about the payout or its lines, every status, newest first (at most `limit`). */
export async function listFindingsOfPayout(db: Queryable, payoutId: string, limit: number) {
  const { rows } = await db.query<Record<string, unknown> & { id: number }>(
    `select f.id, f.code, f.severity, f.status, f.subject_type, f.subject_id, f.account_id, f.currency,
            f.expected, f.actual, f.at_stake, f.details, f.first_seen_at, f.last_seen_at, f.resolved_at
       from findings f, (select $1::text as id) p
      where ${FINDINGS_OF_PAYOUT}
      order by f.id desc
      limit $2::int`,
    [payoutId, limit],
  );
  return rows;
}

/** The lines of any payout that name the payment (credited, its fees, its refunds), with their payout. */
export async function listPayoutLinesOfPayment(db: Queryable, paymentId: string) {
  const { rows } = await db.query<{
    payout_id: string;
    payout_status: string;
    deposits_at: Date | null;
    line_id: string;
    kind: string;
    amount: number;
    net: number;
    currency: string;
    check_status: string | null;
    bank_line_id: number | null;
  }>(
    `select p.id as payout_id, p.status as payout_status, p.deposits_at, l.id as line_id, l.kind, l.amount,
            l.net, l.currency, c.status as check_status, b.id as bank_line_id
       from payout_lines l
       join payouts p on p.id = l.payout_id
       left join payout_line_checks c on c.line_id = l.id
       left join bank_lines b on b.payout_id = p.id
      where l.source_payment_id = $1::text or l.source_id = $1::text
      order by p.created_at nulls first, p.id, l.id`,
    [paymentId],
  );
  return rows;
}

/** Payout ids in id order after `afterId`, at most `limit`: a page of every payout, for a rebuild to judge. */
export async function listPayoutIdsAfter(db: Queryable, afterId: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from payouts where id > $1 order by id limit $2::int`,
    [afterId, limit],
  );
  return rows.map((row) => row.id);
}
