import type { NewEvent } from './insertEvent.ts';
import type { Queryable } from './pool.ts';

/** Keeps a different body delivered under an already stored event id; each distinct body once. */
export async function insertEventConflict(
  db: Queryable,
  event: NewEvent & { eventId: string },
): Promise<void> {
  await db.query(
    `insert into event_conflicts (event_id, headers, raw_body, body_sha256, received_at)
     values ($1::text, $2::jsonb, $3::bytea, $4::bytea, $5::timestamptz)
     on conflict do nothing`,
    [event.eventId, event.headers, event.rawBody, event.bodySha256, event.receivedAt],
  );
}
