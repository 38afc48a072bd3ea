import { listPayoutsAwaitingLines } from '../projection/payoutQueries.ts';
import { enqueue, type QueueDb } from '../queue/queues.ts';

/**
 * A payout a webhook brought has no lines yet: one `payout-sync` job per payout whose lines are not all
 * projected, enqueued in the caller's transaction so it commits with the projection.
 */
export async function enqueueLineSyncs(
  db: Extract<QueueDb, { client: unknown }>,
  delivered: { payoutId: string; accountId: string }[],
): Promise<void> {
  if (delivered.length === 0) return;
  const awaiting = await listPayoutsAwaitingLines(db.client, [
    ...new Set(delivered.map((payout) => payout.payoutId)),
  ]);
  await enqueue(
    db,
    'payout-sync',
    awaiting.map((payout) => ({ account_id: payout.account_id, payout_id: payout.id })),
  );
}
