import type { Queryable } from '../db/pool.ts';

// Test or live, from what Tally projected for the account's payments (`unknown` for an account never seen).
const ACCOUNT_TYPE = (account: string) =>
  `coalesce((select py.account_type from payments py where py.account_id = ${account} limit 1), 'unknown')`;

// The provider gives no paid-at or failed-at time: a paid payout counts on the day its deposit lands
// (`deposits_at`, else its last change), a failed one on the day of its last change (`updated_at`).
const PAID_IN_DAY = `p.status = 'paid' and coalesce(p.deposits_at, p.updated_at) >= $1::timestamptz
                     and coalesce(p.deposits_at, p.updated_at) < $2::timestamptz`;
const FAILED_IN_DAY = `p.status = 'failed' and p.updated_at >= $1::timestamptz and p.updated_at < $2::timestamptz`;
const CREATED_IN_DAY = `p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz`;
const MATCHED = `exists (select from bank_lines b where b.payout_id = p.id)`;

export type DailyPayoutRow = {
  account_type: string;
  account_id: string;
  currency: string;
  created: number;
  paid: number;
  failed: number;
  paid_out: number;
  bank_matched: number;
  bank_unmatched: number;
};

/**
 * Per account and currency: payouts created on the day, paid (and the amount paid out), failed, and of
 * the paid ones, how many a bank statement credit confirms and how many it does not (yet).
 */
export async function sumDailyPayouts(db: Queryable, from: Date, to: Date): Promise<DailyPayoutRow[]> {
  const { rows } = await db.query<DailyPayoutRow>(
    `select ${ACCOUNT_TYPE('p.account_id')} as account_type, p.account_id, p.currency,
            count(*) filter (where ${CREATED_IN_DAY})::int as created,
            count(*) filter (where ${PAID_IN_DAY})::int as paid,
            count(*) filter (where ${FAILED_IN_DAY})::int as failed,
            coalesce(sum(p.amount) filter (where ${PAID_IN_DAY}), 0)::bigint as paid_out,
            count(*) filter (where ${PAID_IN_DAY} and ${MATCHED})::int as bank_matched,
            count(*) filter (where ${PAID_IN_DAY} and not ${MATCHED})::int as bank_unmatched
       from payouts p
      where (${CREATED_IN_DAY}) or (${PAID_IN_DAY}) or (${FAILED_IN_DAY})
      group by p.account_id, p.currency`,
    [from, to],
  );
  return rows;
}

export type DailyPayoutCheckRow = {
  account_type: string;
  account_id: string;
  currency: string;
  lines_checked: number;
  lines_mismatched: number;
};

/** Per account and currency: the lines of the payouts judged on the day, checked and found not to agree. */
export async function sumDailyPayoutChecks(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<DailyPayoutCheckRow[]> {
  const { rows } = await db.query<DailyPayoutCheckRow>(
    `select ${ACCOUNT_TYPE('r.account_id')} as account_type, r.account_id, p.currency,
            sum(r.lines_checked)::int as lines_checked, sum(r.lines_mismatched)::int as lines_mismatched
       from payout_reconciliations r join payouts p on p.id = r.payout_id
      where r.judged_at >= $1::timestamptz and r.judged_at < $2::timestamptz
      group by r.account_id, p.currency`,
    [from, to],
  );
  return rows;
}

export type AwaitingPayoutRow = {
  account_type: string;
  account_id: string;
  currency: string;
  awaiting: number;
  awaiting_amount: number;
  oldest_awaiting_at: Date | null;
};

/**
 * Per account and currency: payments still awaiting a payout (`payment_not_paid_out` open at `until`, as the
 * open findings section counts them), their amount, and when the oldest was created.
 */
export async function sumPaymentsAwaitingPayout(db: Queryable, until: Date): Promise<AwaitingPayoutRow[]> {
  const { rows } = await db.query<AwaitingPayoutRow>(
    `select coalesce(py.account_type, 'unknown') as account_type,
            coalesce(f.account_id, py.account_id) as account_id, coalesce(f.currency, py.currency) as currency,
            count(*)::int as awaiting, coalesce(sum(py.amount), 0)::bigint as awaiting_amount,
            min(py.created_at) as oldest_awaiting_at
       from findings f left join payments py on py.id = f.subject_id
      where f.code = 'payment_not_paid_out' and f.first_seen_at < $1::timestamptz
        and (f.status in ('open', 'acknowledged') or (f.status = 'resolved' and f.resolved_at >= $1::timestamptz))
      group by 1, 2, 3`,
    [until],
  );
  return rows;
}

export type PayoutStatusSummary = {
  lastPayoutSyncAt: Date | null;
  paymentsAwaitingPayout: number;
  payoutsUnmatchedInBank: number;
};

/** For `GET /api/status`: when the payout sync last finished, and the open payout findings people chase. */
export async function summarizePayoutStatus(db: Queryable): Promise<PayoutStatusSummary> {
  const { rows } = await db.query<PayoutStatusSummary>(
    `select (select max(synced_at) from payout_sync_accounts) as "lastPayoutSyncAt",
            (select count(*)::int from findings
              where code = 'payment_not_paid_out' and status in ('open', 'acknowledged')) as "paymentsAwaitingPayout",
            (select count(*)::int from findings
              where code = 'payout_not_in_bank' and status in ('open', 'acknowledged')) as "payoutsUnmatchedInBank"`,
  );
  return rows[0] as PayoutStatusSummary;
}
