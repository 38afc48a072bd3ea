import { findStoredBodyHash } from '../db/findStoredBodyHash.ts';
import { insertEvent, type NewEvent } from '../db/insertEvent.ts';
import { insertEventConflict } from '../db/insertEventConflict.ts';
import type { PoolClient } from '../db/pool.ts';
import { type Boss, inTransaction } from '../queue/boss.ts';

export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict' | 'quarantined';

export const PROCESS_EVENT_QUEUE = 'process-event';

/**
 * Stores deliveries and enqueues their processing on the caller's transaction, so each delivery and its
 * job commit together; several deliveries share the transaction (group commit). A redelivery in the same
 * batch sees the first copy's row, so it is a duplicate there too.
 */
export async function storeDeliveries(
  client: PoolClient,
  boss: Boss,
  events: NewEvent[],
): Promise<StoreOutcome[]> {
  const outcomes: StoreOutcome[] = [];
  const stored: number[] = [];
  for (const event of events) {
    const id = await insertEvent(client, event);
    if (id !== null) {
      outcomes.push(event.quarantineReason === null ? 'accepted' : 'quarantined');
      if (event.quarantineReason === null) stored.push(id);
      continue;
    }
    // The insert waited for any concurrent insert of the same id to commit, so the stored row is final.
    const storedHash = await findStoredBodyHash(client, event.eventId, event.bodySha256);
    if (storedHash === null || storedHash.equals(event.bodySha256) || event.eventId === null) {
      outcomes.push('duplicate');
      continue;
    }
    await insertEventConflict(client, { ...event, eventId: event.eventId });
    outcomes.push('conflict');
  }
  if (stored.length > 0) {
    await boss.insert(
      PROCESS_EVENT_QUEUE,
      stored.map((id) => ({ data: { id } })),
      { db: inTransaction(client) },
    );
  }
  return outcomes;
}
