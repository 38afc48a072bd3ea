import { findStoredBodyHash } from '../db/findStoredBodyHash.ts';
import { insertEvent, type NewEvent } from '../db/insertEvent.ts';
import { insertEventConflict } from '../db/insertEventConflict.ts';
import type { PoolClient } from '../db/pool.ts';
import { type Boss, inTransaction } from '../queue/boss.ts';

export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict' | 'quarantined';

export const PROCESS_EVENT_QUEUE = 'process-event';

/**
 * Stores one delivery and enqueues its processing on the caller's transaction, so the delivery and its
 * job commit together. Taking a client (not a pool) lets several deliveries share one transaction.
 */
export async function storeDelivery(client: PoolClient, boss: Boss, event: NewEvent): Promise<StoreOutcome> {
  const id = await insertEvent(client, event);
  if (id !== null) {
    if (event.quarantineReason !== null) return 'quarantined';
    await boss.send(PROCESS_EVENT_QUEUE, { id }, { db: inTransaction(client) });
    return 'accepted';
  }
  // The insert waited for any concurrent insert of the same id to commit, so the stored row is final.
  const storedHash = await findStoredBodyHash(client, event.eventId, event.bodySha256);
  if (storedHash === null || storedHash.equals(event.bodySha256) || event.eventId === null)
    return 'duplicate';
  await insertEventConflict(client, { ...event, eventId: event.eventId });
  return 'conflict';
}
