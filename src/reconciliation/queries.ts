import type { Queryable } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';
import type { PaymentKind } from '../domain/feeSelection.ts';
import { findFeeSync, listFeeConfigurations } from '../feeConfigurations/queries.ts';

/** The payment fields the rules read. */
export type PaymentRow = PaymentKind & {
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
    from payments where id = $1::text`;

export type PaymentFeeRow = {
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
  select id, type, amount, remaining_amount as "remainingAmount",
         source_configuration_id as "sourceConfigurationId", source_fee_type as "sourceFeeType",
         snapshot_updated_at as "snapshotUpdatedAt"
    from payment_fees where payment_id = $1::text
   order by type, id`;

export type RefundRow = {
  id: string;
  amount: number;
  status: string | null;
  createdAt: Date | null;
  updatedAt: Date;
};

// A refund is projected with an amount; 0 only fills the nullable column's gap.
const REFUNDS_SQL = `
  select id, coalesce(amount, 0) as amount, status, created_at as "createdAt", updated_at as "updatedAt"
    from refunds where payment_id = $1::text
   order by created_at, id`;

export type ReturnedFeeRow = {
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
   where r.payment_id = $1::text
   order by rf.id`;

export type RefundWithReturnedFees = RefundRow & { returnedFees: ReturnedFeeRow[] };

export type CheckoutFeeRow = { type: string; amount: number };

// The checkout that made the payment, and the fees set on it (`payment.fees` as projected), in order.
const CHECKOUT_FEES_SQL = `
  with checkout as (
    select c.id, c.fees
      from checkouts c join payments p on c.id = p.checkout_id or c.payment_id = p.id
     where p.id = $1::text
     order by c.id limit 1
  )
  select checkout.id as "checkoutId", fee.type, fee.amount
    from checkout
         cross join lateral rows from (
           jsonb_to_recordset(case when jsonb_typeof(checkout.fees) = 'array' then checkout.fees else '[]' end)
             as (type text, amount bigint)
         ) with ordinality as fee(type, amount, position)
   order by fee.position`;

export type DisputeRow = {
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
    from disputes where payment_id = $1::text
   order by id`;

/** Everything the rules need to reconcile one payment. */
export type PaymentFacts = {
  payment: PaymentRow;
  /** By type, then id. */
  fees: PaymentFeeRow[];
  /** In creation order, each with the fees it returned. */
  refunds: RefundWithReturnedFees[];
  /** The checkout that made the payment, when fees were set on it. */
  checkout: { id: string; fees: CheckoutFeeRow[] } | null;
  disputes: DisputeRow[];
  /** The sub account's fee configurations; null until they have been synced once. */
  configurations: FeeConfiguration[] | null;
};

/** A dispute can arrive before its payment: then the disputes are all there is to reconcile. */
export type UnknownPaymentFacts = { payment: null; disputes: DisputeRow[] };

/**
 * Loads what reconciliation knows of one payment id. Run it in a repeatable-read transaction: its queries
 * then see one snapshot, never a payment paired with fees of a snapshot committed in between.
 */
export async function loadPaymentFacts(
  db: Queryable,
  paymentId: string,
): Promise<PaymentFacts | UnknownPaymentFacts> {
  const disputes = (await db.query<DisputeRow>(DISPUTES_SQL, [paymentId])).rows;
  const payment = (await db.query<PaymentRow>(PAYMENT_SQL, [paymentId])).rows[0];
  if (!payment) return { payment: null, disputes };
  const fees = (await db.query<PaymentFeeRow>(FEES_SQL, [paymentId])).rows;
  const refunds = (await db.query<RefundRow>(REFUNDS_SQL, [paymentId])).rows;
  const returnedFees = (await db.query<ReturnedFeeRow & { refundId: string }>(RETURNED_FEES_SQL, [paymentId]))
    .rows;
  const checkoutFees = (
    await db.query<CheckoutFeeRow & { checkoutId: string }>(CHECKOUT_FEES_SQL, [paymentId])
  ).rows;
  const synced = await findFeeSync(db, payment.accountId);
  const returnedByRefund = new Map<string, ReturnedFeeRow[]>();
  for (const { refundId, ...returned } of returnedFees)
    returnedByRefund.set(refundId, [...(returnedByRefund.get(refundId) ?? []), returned]);
  return {
    payment,
    fees,
    refunds: refunds.map((refund) => ({ ...refund, returnedFees: returnedByRefund.get(refund.id) ?? [] })),
    checkout:
      checkoutFees[0] === undefined
        ? null
        : {
            id: checkoutFees[0].checkoutId,
            fees: checkoutFees.map((fee) => ({ type: fee.type, amount: fee.amount })),
          },
    disputes,
    configurations: synced ? await listFeeConfigurations(db, payment.accountId) : null,
  };
}

export async function upsertPaymentReconciliation(
  db: Queryable,
  row: { paymentId: string; accountId: string; reconciledAt: Date; overrides: number; unverified: number },
): Promise<void> {
  await db.query(
    `insert into payment_reconciliations (payment_id, account_id, reconciled_at, overrides, unverified)
     values ($1::text, $2::text, $3::timestamptz, $4::int, $5::int)
     on conflict (payment_id) do update set account_id = excluded.account_id,
       reconciled_at = excluded.reconciled_at, overrides = excluded.overrides, unverified = excluded.unverified`,
    [row.paymentId, row.accountId, row.reconciledAt, row.overrides, row.unverified],
  );
}
