import type { Queryable } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import type { PaymentKind } from '../domain/feeSelection.ts';
import { findSyncedAccounts, listFeeConfigurationsOfAccounts } from '../feeConfigurations/queries.ts';
import { type EarlierDecline, listEarlierDeclines } from './declineQueries.ts';

/** The payment fields the rules read. */
export type PaymentToReconcile = PaymentKind & {
  id: string;
  accountId: string;
  currency: string | null;
  amount: number;
  status: string | null;
  feeAmount: number | null;
  applicationFeeAmount: number | null;
  createdAt: Date | null;
  /** The provider says the fees were handed back without a refund object (an ACH return, a void). */
  returned: boolean;
  errorCode: string | null;
  errorDescription: string | null;
  succeededAt: Date | null;
  failedAt: Date | null;
};

const PAYMENT_SQL = `
  select id, account_id as "accountId", currency,
         -- The payment schema requires an amount, so every projected payment has one.
         coalesce(amount, 0) as amount,
         status, fee_amount as "feeAmount", application_fee_amount as "applicationFeeAmount",
         created_at as "createdAt", method_kind as "methodKind", card_brand as "cardBrand", expedited,
         coalesce(returned, false) as returned, error_code as "errorCode", error_description as "errorDescription",
         succeeded_at as "succeededAt", failed_at as "failedAt"
    from payments where id = any($1::text[])`;

export type PaymentFeeToReconcile = {
  id: string;
  type: string;
  amount: number;
  remainingAmount: number | null;
  sourceConfigurationId: string | null;
  sourceFeeType: string | null;
  /** `updated_at` of the payment snapshot the fee came from: a snapshot older than a refund is no evidence. */
  snapshotUpdatedAt: Date;
};

const FEES_SQL = `
  select payment_id as "paymentId", id, type, amount, remaining_amount as "remainingAmount",
         source_configuration_id as "sourceConfigurationId", source_fee_type as "sourceFeeType",
         snapshot_updated_at as "snapshotUpdatedAt"
    from payment_fees where payment_id = any($1::text[])
   order by payment_id, type, id`;

export type RefundToReconcile = {
  id: string;
  amount: number;
  status: string | null;
  createdAt: Date | null;
  updatedAt: Date;
};

// A refund is projected with an amount; 0 only fills the nullable column's gap.
const REFUNDS_SQL = `
  select payment_id as "paymentId", id, coalesce(amount, 0) as amount, status, created_at as "createdAt",
         updated_at as "updatedAt"
    from refunds where payment_id = any($1::text[])
   order by payment_id, created_at, id`;

export type ReturnedFeeToReconcile = {
  id: string;
  paymentFeeId: string | null;
  returnedAmount: number | null;
  originalAmount: number | null;
  remainingAmount: number | null;
};

const RETURNED_FEES_SQL = `
  select rf.refund_id as "refundId", rf.id, rf.payment_fee_id as "paymentFeeId",
         rf.returned_amount as "returnedAmount", rf.original_amount as "originalAmount",
         rf.remaining_amount as "remainingAmount"
    from returned_fees rf join refunds r on r.id = rf.refund_id
   where r.payment_id = any($1::text[])
   order by rf.id`;

export type RefundWithReturnedFees = RefundToReconcile & { returnedFees: ReturnedFeeToReconcile[] };

export type CheckoutFeeToReconcile = { type: string; amount: number };

// Per payment, the checkout that made it, and the fees set on it (`payment.fees` as projected), in order.
const CHECKOUT_FEES_SQL = `
  select p.id as "paymentId", checkout.id as "checkoutId", fee.type, fee.amount
    from payments p
         cross join lateral (
           select c.id, c.fees from checkouts c
            where c.id = p.checkout_id or c.payment_id = p.id
            order by c.id limit 1
         ) checkout
         cross join lateral rows from (
           jsonb_to_recordset(case when jsonb_typeof(checkout.fees) = 'array' then checkout.fees else '[]' end)
             as (type text, amount bigint)
         ) with ordinality as fee(type, amount, position)
   where p.id = any($1::text[])
   order by p.id, fee.position`;

export type DisputeToReconcile = {
  id: string;
  paymentId: string;
  accountId: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  /** A bare date, `2026-02-23`. */
  dueDate: string | null;
  status: string | null;
};

const DISPUTES_SQL = `
  select id, payment_id as "paymentId", account_id as "accountId", amount, currency,
         reason, to_char(due_date, 'YYYY-MM-DD') as "dueDate", status
    from disputes where payment_id = any($1::text[])
   order by payment_id, id`;

/** Everything the rules need to reconcile one payment. */
export type PaymentFacts = {
  payment: PaymentToReconcile;
  /** By type, then id. */
  fees: PaymentFeeToReconcile[];
  /** In creation order, each with the fees it returned. */
  refunds: RefundWithReturnedFees[];
  /** The checkout that made the payment, when fees were set on it. */
  checkout: { id: string; fees: CheckoutFeeToReconcile[] } | null;
  disputes: DisputeToReconcile[];
  /** The sub account's fee configurations; null until they have been synced once. */
  configurations: FeeConfiguration[] | null;
  /** Earlier declines of the same card that said not to charge it again, newest first. */
  earlierDeclines: EarlierDecline[];
};

/** A dispute can arrive before its payment: then the disputes are all there is to reconcile. */
export type UnknownPaymentFacts = { payment: null; disputes: DisputeToReconcile[] };

type OfPayment = { paymentId: string };

// Rows of many payments, in their query's order, by payment id.
function byPayment<Row extends OfPayment>(rows: Row[]): Map<string, Omit<Row, 'paymentId'>[]> {
  const grouped = new Map<string, Omit<Row, 'paymentId'>[]>();
  for (const { paymentId, ...row } of rows) {
    const list = grouped.get(paymentId) ?? [];
    list.push(row);
    grouped.set(paymentId, list);
  }
  return grouped;
}

// Per sub account, its fee configurations, or null until they have been synced once: two queries for all.
async function loadConfigurations(db: Queryable, accountIds: string[]) {
  const accounts = [...new Set(accountIds)];
  const synced = await findSyncedAccounts(db, accounts);
  const configurations = new Map<string, FeeConfiguration[] | null>(
    accounts.map((accountId) => [accountId, synced.has(accountId) ? [] : null]),
  );
  if (synced.size === 0) return configurations;
  for (const configuration of await listFeeConfigurationsOfAccounts(db, [...synced]))
    configurations.get(configuration.accountId)?.push(configuration);
  return configurations;
}

/**
 * Loads what reconciliation knows of each payment id, in one query per table for all of them (plus two for
 * the fee configurations of all their sub accounts). Run it in a repeatable-read transaction: its queries
 * then see one snapshot, never a payment paired with fees of a snapshot committed in between.
 */
export async function loadPaymentFacts(
  db: Queryable,
  paymentIds: string[],
): Promise<Map<string, PaymentFacts | UnknownPaymentFacts>> {
  const disputes = byPayment((await db.query<DisputeToReconcile>(DISPUTES_SQL, [paymentIds])).rows);
  const payments = (await db.query<PaymentToReconcile>(PAYMENT_SQL, [paymentIds])).rows;
  const known = payments.map((payment) => payment.id);
  const fees = byPayment((await db.query<PaymentFeeToReconcile & OfPayment>(FEES_SQL, [known])).rows);
  const refunds = byPayment((await db.query<RefundToReconcile & OfPayment>(REFUNDS_SQL, [known])).rows);
  const returnedFees = (
    await db.query<ReturnedFeeToReconcile & { refundId: string }>(RETURNED_FEES_SQL, [known])
  ).rows;
  const checkoutFees = byPayment(
    (await db.query<CheckoutFeeToReconcile & OfPayment & { checkoutId: string }>(CHECKOUT_FEES_SQL, [known]))
      .rows,
  );
  const earlierDeclines = await listEarlierDeclines(db, known);
  const configurations = await loadConfigurations(
    db,
    payments.map((payment) => payment.accountId),
  );
  const returnedByRefund = new Map<string, ReturnedFeeToReconcile[]>();
  for (const { refundId, ...returned } of returnedFees)
    returnedByRefund.set(refundId, [...(returnedByRefund.get(refundId) ?? []), returned]);

  // byPayment drops the payment id, which a dispute's rules read.
  const disputesOf = (paymentId: string) =>
    (disputes.get(paymentId) ?? []).map((dispute) => ({ ...dispute, paymentId }));
  const facts = new Map<string, PaymentFacts | UnknownPaymentFacts>(
    paymentIds.map((paymentId) => [paymentId, { payment: null, disputes: disputesOf(paymentId) }]),
  );
  for (const payment of payments) {
    const checkout = checkoutFees.get(payment.id);
    facts.set(payment.id, {
      payment,
      fees: fees.get(payment.id) ?? [],
      refunds: (refunds.get(payment.id) ?? []).map((refund) => ({
        ...refund,
        returnedFees: returnedByRefund.get(refund.id) ?? [],
      })),
      checkout:
        checkout?.[0] === undefined
          ? null
          : {
              id: checkout[0].checkoutId,
              fees: checkout.map((fee) => ({ type: fee.type, amount: fee.amount })),
            },
      disputes: disputesOf(payment.id),
      configurations: configurations.get(payment.accountId) ?? null,
      earlierDeclines: earlierDeclines.get(payment.id) ?? [],
    });
  }
  return facts;
}
