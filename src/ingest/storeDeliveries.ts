import { type Pool, withTransaction } from '../db/pool.ts';
import { openEventConflictFindings, openQuarantineFindings } from './ingestFindings.ts';
import {
  findStoredBodyHashes,
  insertEventConflicts,
  insertEvents,
  type NewEvent,
  type StoredEvent,
} from './queries.ts';

export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict' | 'quarantined';

const key = (eventId: string | null, hash: Buffer) => `${eventId ?? ''}\u0000${hash.toString('hex')}`;

// A quarantined delivery opens its finding in the transaction that stores it, so nobody misses one; the
// common batch has none and is one statement, committed on its own (the row is also the worker's queue).
async function insertBatch(pool: Pool, events: NewEvent[]): Promise<StoredEvent[]> {
  if (events.every((event) => event.quarantineReason === null)) return insertEvents(pool, events);
  return withTransaction(pool, async (client) => {
    const rows = await insertEvents(client, events);
    const quarantined = rows.filter((row) => row.inserted && row.event_id === null);
    await openQuarantineFindings(
      client,
      quarantined.map((row) => row.id),
    );
    return rows;
  });
}

/**
 * Stores deliveries in one statement however many share it (group commit); a stored delivery is what the
 * worker claims, so there is no job to write. The same event id with the same bytes is a duplicate, also
 * within one batch; with other bytes it is a conflict, kept aside with its finding. Conflicts are recorded
 * after the batch commits: if that fails the request fails and the provider's retry records it again.
 */
export async function storeDeliveries(pool: Pool, events: NewEvent[]): Promise<StoreOutcome[]> {
  const rows = await insertBatch(pool, events);
  // The first delivery of each inserted row is the one that was stored; any later copy is a redelivery.
  const inserted = new Set(
    rows.filter((row) => row.inserted).map((row) => key(row.event_id, row.body_sha256)),
  );
  const storedHashes = new Map(rows.map((row) => [row.event_id, row.body_sha256]));
  const outcomes: (StoreOutcome | null)[] = events.map((event) => {
    if (!inserted.delete(key(event.eventId, event.bodySha256))) return null;
    return event.quarantineReason === null ? 'accepted' : 'quarantined';
  });
  // Ids stored by a transaction that committed while the insert ran (it waited for it): read them now.
  const unknown = events.filter(
    (event, index) => outcomes[index] === null && event.eventId !== null && !storedHashes.has(event.eventId),
  );
  if (unknown.length > 0) {
    const hashes = await findStoredBodyHashes(
      pool,
      unknown.map((event) => event.eventId as string),
    );
    for (const [eventId, hash] of hashes) storedHashes.set(eventId, hash);
  }
  const conflicts: NewEvent[] = [];
  events.forEach((event, index) => {
    if (outcomes[index] !== null) return;
    const storedHash = event.eventId === null ? undefined : storedHashes.get(event.eventId);
    if (storedHash === undefined || storedHash.equals(event.bodySha256)) {
      outcomes[index] = 'duplicate';
    } else {
      outcomes[index] = 'conflict';
      conflicts.push(event);
    }
  });
  if (conflicts.length > 0) {
    await withTransaction(pool, async (client) => {
      await insertEventConflicts(client, conflicts);
      await openEventConflictFindings(
        client,
        conflicts.map((event) => event.eventId as string),
      );
    });
  }
  return outcomes as StoreOutcome[];
}
