import { enqueue, type QueueDb } from './enqueue.ts';
import { PAYMENTS_PER_RECONCILIATION } from './queues.ts';

/**
 * Enqueues `reconcile-payments` for these payments (each once), PAYMENTS_PER_RECONCILIATION to a job, in one
 * insert. Returns how many payments were queued.
 */
export async function enqueueReconciliations(db: QueueDb, paymentIds: string[]): Promise<number> {
  const ids = [...new Set(paymentIds)];
  const payloads = [];
  for (let start = 0; start < ids.length; start += PAYMENTS_PER_RECONCILIATION)
    payloads.push({ payment_ids: ids.slice(start, start + PAYMENTS_PER_RECONCILIATION) });
  await enqueue(db, 'reconcile-payments', payloads);
  return ids.length;
}
