import type { Queryable } from '../db/pool.ts';
import { findPayments, type PaymentToCheck } from './payoutFactsQueries.ts';

/** A payout line crediting a payment, in a payout that did not fail and was not canceled. */
export type PaymentCredit = {
  paymentId: string;
  lineId: string;
  payoutId: string;
  accountId: string;
  currency: string;
  amount: number;
};

// Two halves, one per index (source_payment_id, then source_id for a line that names no payment id): an `or`
// of the two would scan every line of every payout.
const CREDIT_COLUMNS = `
  select coalesce(l.source_payment_id, l.source_id) as "paymentId", l.id as "lineId", l.payout_id as "payoutId",
         p.account_id as "accountId", p.currency, l.amount
    from payout_lines l join payouts p on p.id = l.payout_id
   where l.kind = 'payment' and l.amount > 0 and p.status not in ('failed', 'canceled')`;
const CREDITS_SQL = `
  ${CREDIT_COLUMNS} and l.source_payment_id = any($1::text[])
  union all
  ${CREDIT_COLUMNS} and l.source_payment_id is null and l.source_id = any($1::text[])
  order by "payoutId", "lineId"`;

/** Every credit of these payments in a payout that did not fail and was not canceled. */
export async function listPaymentCredits(db: Queryable, paymentIds: string[]): Promise<PaymentCredit[]> {
  return (await db.query<PaymentCredit>(CREDITS_SQL, [paymentIds])).rows;
}

/** What rule 3 reads of one payment: the payment (null when Tally does not have it) and its payout credits. */
export type PaymentPayoutFacts = {
  paymentId: string;
  payment: PaymentToCheck | null;
  /** Its credits in payouts that did not fail and were not canceled. */
  credits: PaymentCredit[];
  /** The payment's sub account, when the payout sync lists its payouts. */
  account: SyncedAccount | null;
};

/** The stretch of a synced sub account's payouts that the payout sync has listed. */
export type SyncedAccount = {
  accountId: string;
  /** The newest payout the sync has seen: payments created after it may simply not be paid out yet. */
  newestPayoutCreatedAt: Date | null;
  /**
   * Where the first full listing started (PAYOUT_LOOKBACK_DAYS before it): a payment created before it may
   * have been paid out in a payout never listed. Not the oldest payout held: payouts may have begun later.
   */
  listedFrom: Date | null;
};

const SYNCED_ACCOUNTS_SQL = `
  select s.account_id as "accountId", s.newest_payout_created_at as "newestPayoutCreatedAt",
         s.listed_from as "listedFrom"
    from payout_sync_accounts s where s.account_id = any($1::text[])`;

/** The payout sync's accounts among these. */
export async function findSyncedAccounts(db: Queryable, accountIds: string[]): Promise<SyncedAccount[]> {
  return (await db.query<SyncedAccount>(SYNCED_ACCOUNTS_SQL, [accountIds])).rows;
}

/** Payments the previous judgement of these payouts matched to a line: they may have left the payouts since. */
export async function listCheckedPayments(db: Queryable, payoutIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select distinct matched_id as id from payout_line_checks
      where payout_id = any($1::text[]) and matched_type = 'payment' and matched_id is not null`,
    [payoutIds],
  );
  return rows.map((row) => row.id);
}

/**
 * What rule 3 reads of each payment: the payment, its credits in payouts that did not fail, and its sub
 * account's payout history when the sync lists it. Three queries for all of them.
 */
export async function loadPaymentPayoutFacts(
  db: Queryable,
  paymentIds: string[],
): Promise<PaymentPayoutFacts[]> {
  const payments = new Map((await findPayments(db, paymentIds)).map((payment) => [payment.id, payment]));
  const credits = new Map<string, PaymentCredit[]>();
  for (const credit of await listPaymentCredits(db, paymentIds)) {
    const ofPayment = credits.get(credit.paymentId) ?? [];
    ofPayment.push(credit);
    credits.set(credit.paymentId, ofPayment);
  }
  const accountIds = [...new Set([...payments.values()].map((payment) => payment.accountId))];
  const accounts = new Map(
    (await findSyncedAccounts(db, accountIds)).map((account) => [account.accountId, account]),
  );
  return paymentIds.map((paymentId) => {
    const payment = payments.get(paymentId) ?? null;
    return {
      paymentId,
      payment,
      credits: credits.get(paymentId) ?? [],
      account: payment === null ? null : (accounts.get(payment.accountId) ?? null),
    };
  });
}
