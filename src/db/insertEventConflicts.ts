import type { NewEvent } from './insertEvents.ts';
import type { Queryable } from './pool.ts';

/** Keeps bodies delivered under an already stored event id with different bytes; each distinct one once. */
export async function insertEventConflicts(db: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `insert into event_conflicts (event_id, headers, raw_body, body_sha256, received_at)
     select e.event_id, e.headers, decode(e.raw_body, 'base64'), decode(e.body_sha256, 'hex'), e.received_at
       from unnest($1::text[], $2::jsonb[], $3::text[], $4::text[], $5::timestamptz[])
            as e(event_id, headers, raw_body, body_sha256, received_at)
     on conflict do nothing`,
    [
      events.map((event) => event.eventId),
      events.map((event) => JSON.stringify(event.headers)),
      events.map((event) => event.rawBody.toString('base64')),
      events.map((event) => event.bodySha256.toString('hex')),
      events.map((event) => event.receivedAt),
    ],
  );
}
