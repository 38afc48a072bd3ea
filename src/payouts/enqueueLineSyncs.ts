import { enqueue, type QueueDb } from '../queue/enqueue.ts';
import { listPayoutsAwaitingLines } from './syncQueries.ts';

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
