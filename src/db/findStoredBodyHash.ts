import type { Queryable } from './pool.ts';

/** The body hash already stored for an event id, or for a quarantined body with no id. */
export async function findStoredBodyHash(db: Queryable, eventId: string | null, bodySha256: Buffer) {
  const { rows } = await db.query<{ body_sha256: Buffer }>(
    eventId === null
      ? 'select body_sha256 from events where event_id is null and body_sha256 = $1::bytea'
      : 'select body_sha256 from events where event_id = $1::text',
    [eventId ?? bodySha256],
  );
  return rows[0]?.body_sha256 ?? null;
}
