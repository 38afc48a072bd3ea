import type { Queryable } from '../db/pool.ts';
import { enqueue, type QueueDb } from '../queue/enqueue.ts';
import { PAYOUTS_PER_RECONCILIATION } from '../queue/queues.ts';

// A payment projected after the payouts naming it (a line fetched before its payment, a refund arriving
// later) changes what those payouts' lines are checked against: they are judged again.
async function listPayoutsNamingPayments(db: Queryable, paymentIds: string[]): Promise<string[]> {
  if (paymentIds.length === 0) return [];
  const { rows } = await db.query<{ payout_id: string }>(
    `select distinct payout_id from payout_lines where source_payment_id = any($1::text[])`,
    [paymentIds],
  );
  return rows.map((row) => row.payout_id);
}

/**
 * Enqueues `reconcile-payouts` for the payouts a projection batch changed and those naming its payments, in the
 * caller's transaction so the judgement is never lost. A payout still loading its lines is judged on its
 * status only (see reconcilePayouts).
 */
export async function enqueuePayoutReconciliations(
  db: Extract<QueueDb, { client: unknown }>,
  payoutIds: string[],
  paymentIds: string[],
): Promise<void> {
  const ids = [...new Set([...payoutIds, ...(await listPayoutsNamingPayments(db.client, paymentIds))])];
  const payloads = [];
  for (let start = 0; start < ids.length; start += PAYOUTS_PER_RECONCILIATION)
    payloads.push({ payout_ids: ids.slice(start, start + PAYOUTS_PER_RECONCILIATION) });
  await enqueue(db, 'reconcile-payouts', payloads);
}
