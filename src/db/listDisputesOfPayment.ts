import type { DisputeToReconcile } from '../domain/disputeSnapshot.ts';
import type { Queryable } from './pool.ts';

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
