import type { PoolClient } from '../db/pool.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueue } from '../queue/queues.ts';
import {
  findStoredBodyHashes,
  insertEventConflicts,
  insertEvents,
  type NewEvent,
  openEventConflictFindings,
  openQuarantineFindings,
} from './queries.ts';

export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict' | 'quarantined';

const key = (eventId: string | null, hash: Buffer) => `${eventId ?? ''}\u0000${hash.toString('hex')}`;

/**
 * Stores deliveries and enqueues their processing on the caller's transaction, so each delivery and its
 * job commit together, in a fixed handful of statements however many deliveries share the transaction
 * (group commit). The same event id with the same bytes is a duplicate, also within one batch; with other
 * bytes it is a conflict, kept aside. Conflicts and quarantines open their findings in the same transaction.
 */
export async function storeDeliveries(
  client: PoolClient,
  boss: Boss,
  events: NewEvent[],
): Promise<StoreOutcome[]> {
  const inserted = await insertEvents(client, events);
  // The first delivery of each inserted row is the one that was stored; any later copy is a redelivery.
  const stored = new Map(inserted.map((row) => [key(row.event_id, row.body_sha256), row.id]));
  const outcomes: (StoreOutcome | null)[] = events.map((event) => {
    const id = stored.get(key(event.eventId, event.bodySha256));
    if (id === undefined) return null;
    stored.delete(key(event.eventId, event.bodySha256));
    return event.quarantineReason === null ? 'accepted' : 'quarantined';
  });
  // The insert waited for concurrent inserts of the same ids to commit, so the stored rows are final.
  const unresolved = events.filter((event, index) => outcomes[index] === null && event.eventId !== null);
  const hashes =
    unresolved.length > 0
      ? await findStoredBodyHashes(
          client,
          unresolved.map((event) => event.eventId as string),
        )
      : new Map();
  const conflicts: NewEvent[] = [];
  events.forEach((event, index) => {
    if (outcomes[index] !== null) return;
    const storedHash = event.eventId === null ? undefined : hashes.get(event.eventId);
    if (storedHash === undefined || storedHash.equals(event.bodySha256)) {
      outcomes[index] = 'duplicate';
    } else {
      outcomes[index] = 'conflict';
      conflicts.push(event);
    }
  });
  await insertEventConflicts(client, conflicts);
  // Both are rare, so the common batch pays nothing for them; people are told through findings.
  await openEventConflictFindings(
    client,
    conflicts.map((event) => event.eventId as string),
  );
  // Quarantined rows are the ones stored without an event id; they get no processing job.
  await openQuarantineFindings(
    client,
    inserted.filter((row) => row.event_id === null).map((row) => row.id),
  );
  const accepted = inserted.filter((row) => row.event_id !== null);
  await enqueue(
    { boss, client },
    'process-event',
    accepted.map((row) => ({ id: row.id })),
  );
  return outcomes as StoreOutcome[];
}
