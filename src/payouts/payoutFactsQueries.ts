import type { Queryable } from '../db/pool.ts';

/** What a payout line does (`payout_lines.kind`). */
export type LineKind = 'payment' | 'refund' | 'fee' | 'fee_return' | 'payout' | 'other';

/** The payout fields the rules read. Stated totals and counts are null when the provider did not state them. */
export type PayoutToCheck = {
  id: string;
  accountId: string;
  amount: number;
  currency: string;
  status: string;
  payoutType: string | null;
  depositsAt: Date | null;
  paymentsCount: number | null;
  paymentsTotal: number | null;
  refundsCount: number | null;
  refundsTotal: number | null;
  feesTotal: number | null;
  otherTotal: number | null;
  createdAt: Date | null;
  linesComplete: boolean;
  /** The projected state the row was read at (`findPayoutVersions`). */
  version: string;
};

// Changes whenever the projection changes the payout or any of its lines (a newer snapshot has a newer row id).
const VERSION = `concat_ws(':', p.event_row_id, p.lines_complete, p.line_count, lines.count, lines.newest)`;
const LINES_STATE = `cross join lateral (
           select count(*) as count, max(event_row_id) as newest from payout_lines where payout_id = p.id
         ) lines`;

const PAYOUTS_SQL = `
  select p.id, p.account_id as "accountId", p.amount, p.currency, p.status, p.payout_type as "payoutType",
         p.deposits_at as "depositsAt", p.payments_count as "paymentsCount", p.payments_total as "paymentsTotal",
         p.refunds_count as "refundsCount", p.refunds_total as "refundsTotal", p.fees_total as "feesTotal",
         p.other_total as "otherTotal", p.created_at as "createdAt", p.lines_complete as "linesComplete",
         ${VERSION} as version
    from payouts p ${LINES_STATE}
   where p.id = any($1::text[])
   order by p.id`;

/** Payouts by id, those Tally has. */
export async function findPayouts(db: Queryable, payoutIds: string[]): Promise<PayoutToCheck[]> {
  return (await db.query<PayoutToCheck>(PAYOUTS_SQL, [payoutIds])).rows;
}

/**
 * The projected state of each payout, its row locked until the transaction ends: a judgement read at another
 * state has been overtaken (the change that moved it queued a judgement of its own).
 */
export async function lockPayoutVersions(db: Queryable, payoutIds: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; version: string }>(
    `select p.id, ${VERSION} as version from payouts p ${LINES_STATE}
      where p.id = any($1::text[]) order by p.id for update of p`,
    [payoutIds],
  );
  return new Map(rows.map((row) => [row.id, row.version]));
}

/** A payout line, with the payment it belongs to as far as Tally can tell (null when it names none). */
export type PayoutLineToCheck = {
  id: string;
  payoutId: string;
  txnType: string;
  kind: LineKind;
  /** Merchant balance's view: a credit positive, a debit negative. */
  amount: number;
  /** The magnitude deducted from the line: net = amount - fee. */
  fee: number;
  net: number;
  sourceId: string | null;
  sourceType: string | null;
  paymentId: string | null;
};

// The payment of a line: the one it names, else the payment of the refund, fee or returned fee it comes from.
const LINES_SQL = `
  select l.id, l.payout_id as "payoutId", l.txn_type as "txnType", l.kind, l.amount, l.fee, l.net,
         l.source_id as "sourceId", l.source_type as "sourceType",
         coalesce(l.source_payment_id,
                  case when l.source_type = 'payment' or l.source_id like 'py\\_%' then l.source_id end,
                  refund.payment_id, fee.payment_id, returned_refund.payment_id) as "paymentId"
    from payout_lines l
         left join refunds refund on refund.id = l.source_id
         left join payment_fees fee on fee.id = l.source_id
         left join returned_fees returned on returned.id = l.source_id
         left join refunds returned_refund on returned_refund.id = returned.refund_id
   where l.payout_id = any($1::text[])
   order by l.payout_id, l.created_at, l.id`;

/** Every line of the payouts, in one query. */
export async function listPayoutLines(db: Queryable, payoutIds: string[]): Promise<PayoutLineToCheck[]> {
  return (await db.query<PayoutLineToCheck>(LINES_SQL, [payoutIds])).rows;
}

export type PaymentFeeToCheck = { id: string; type: string; amount: number; remainingAmount: number | null };
export type ReturnedFeeToCheck = { id: string; type: string | null; returnedAmount: number | null };
export type RefundToCheck = {
  id: string;
  amount: number;
  status: string | null;
  returnedFees: ReturnedFeeToCheck[];
};

/** A payment as payout reconciliation reads it. */
export type PaymentToCheck = {
  id: string;
  accountId: string;
  currency: string | null;
  amount: number;
  status: string | null;
  /** card, card_present, ach or other (`payments.method_kind`). */
  methodKind: string | null;
  /** An ACH return or a void handed the fees back without a refund object. */
  returned: boolean;
  amountRefunded: number | null;
  createdAt: Date | null;
};

/** A payment with its fees and refunds (each with the fees it returned). */
export type PaymentWithObjects = PaymentToCheck & { fees: PaymentFeeToCheck[]; refunds: RefundToCheck[] };

const PAYMENTS_SQL = `
  select id, account_id as "accountId", currency, coalesce(amount, 0) as amount, status,
         method_kind as "methodKind", coalesce(returned, false) as returned, amount_refunded as "amountRefunded",
         created_at as "createdAt"
    from payments where id = any($1::text[])`;

const FEES_SQL = `
  select payment_id as "paymentId", id, type, amount, remaining_amount as "remainingAmount"
    from payment_fees where payment_id = any($1::text[])
   order by payment_id, type, id`;

const REFUNDS_SQL = `
  select payment_id as "paymentId", id, coalesce(amount, 0) as amount, status
    from refunds where payment_id = any($1::text[])
   order by payment_id, created_at, id`;

// A returned fee's type is its own, else that of the fee it returns.
const RETURNED_FEES_SQL = `
  select rf.refund_id as "refundId", rf.id, coalesce(rf.type, fee.type) as type, rf.returned_amount as "returnedAmount"
    from returned_fees rf
         join refunds r on r.id = rf.refund_id
         left join payment_fees fee on fee.id = rf.payment_fee_id
   where r.payment_id = any($1::text[])
   order by rf.id`;

/** Payments by id (those Tally has), without their fees and refunds. */
export async function findPayments(db: Queryable, paymentIds: string[]): Promise<PaymentToCheck[]> {
  return (await db.query<PaymentToCheck>(PAYMENTS_SQL, [paymentIds])).rows;
}

/** Payments by id with their fees, refunds and returned fees: four queries for all of them. */
export async function loadPaymentsWithObjects(
  db: Queryable,
  paymentIds: string[],
): Promise<Map<string, PaymentWithObjects>> {
  const payments = new Map<string, PaymentWithObjects>();
  for (const payment of await findPayments(db, paymentIds))
    payments.set(payment.id, { ...payment, fees: [], refunds: [] });
  const known = [...payments.keys()];
  const refunds = new Map<string, RefundToCheck>();
  for (const { paymentId, ...fee } of (
    await db.query<PaymentFeeToCheck & { paymentId: string }>(FEES_SQL, [known])
  ).rows)
    payments.get(paymentId)?.fees.push(fee);
  for (const { paymentId, ...row } of (
    await db.query<Omit<RefundToCheck, 'returnedFees'> & { paymentId: string }>(REFUNDS_SQL, [known])
  ).rows) {
    const refund = { ...row, returnedFees: [] };
    refunds.set(refund.id, refund);
    payments.get(paymentId)?.refunds.push(refund);
  }
  for (const { refundId, ...returned } of (
    await db.query<ReturnedFeeToCheck & { refundId: string }>(RETURNED_FEES_SQL, [known])
  ).rows)
    refunds.get(refundId)?.returnedFees.push(returned);
  return payments;
}
