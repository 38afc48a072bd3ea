import type { Queryable } from '../../db/pool.ts';
import { enqueue, type QueueDb } from '../../queue/enqueue.ts';
import { PAYOUTS_PER_RECONCILIATION } from '../../queue/queues.ts';

// What a projected payout, or a payment some payout names, sets going in the payout stage: jobs enqueued in
// the projection's transaction, so they commit with it.

/**
 * Of these payouts, those whose lines are neither all projected nor stored by a sync of the payout's shown
 * state, with their account: a rebuild from the raw log, which projects a delivery before the lines the sync
 * stored after it, sends no sync for them. Reads the payout stage's `payout_line_syncs`.
 */
async function listPayoutsAwaitingLines(
  db: Queryable,
  payoutIds: string[],
): Promise<{ id: string; account_id: string }[]> {
  if (payoutIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; account_id: string }>(
    `select p.id, p.account_id from payouts p
      where p.id = any($1::text[]) and not p.lines_complete
        and not exists (select 1 from payout_line_syncs s
                         where s.payout_id = p.id and s.payout_status = p.status
                           and s.payout_updated_at >= p.updated_at)
      order by p.id`,
    [payoutIds],
  );
  return rows;
}

/**
 * A payout a webhook brought has no lines yet: one `payout-sync` job per payout whose lines are not all
 * projected nor already stored (see `listPayoutsAwaitingLines`), enqueued in the caller's transaction so
 * it commits with the projection.
 */
export async function enqueueLineSyncs(
  db: Extract<QueueDb, { client: unknown }>,
  deliveredPayoutIds: string[],
): Promise<void> {
  if (deliveredPayoutIds.length === 0) return;
  const awaiting = await listPayoutsAwaitingLines(db.client, [...new Set(deliveredPayoutIds)]);
  await enqueue(
    db,
    'payout-sync',
    awaiting.map((payout) => ({ account_id: payout.account_id, payout_id: payout.id })),
  );
}

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
