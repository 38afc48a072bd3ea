import type { Queryable } from '../db/pool.ts';
import type { DisputeToReconcile } from '../projection/disputeSnapshot.ts';

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

/** The disputes of a payment, as reconciliation reads them; the payment itself may not be known yet. */
export async function listDisputesOfPayment(db: Queryable, paymentId: string): Promise<DisputeToReconcile[]> {
  const { rows } = await db.query<DisputeToReconcile>(
    `select id, payment_id as "paymentId", account_id as "accountId", amount, currency,
            reason, to_char(due_date, 'YYYY-MM-DD') as "dueDate", status
       from disputes
      where payment_id = $1::text
      order by id`,
    [paymentId],
  );
  return rows;
}
