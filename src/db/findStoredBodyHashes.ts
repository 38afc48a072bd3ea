import type { Queryable } from './pool.ts';

/** The body hash stored for each of these event ids. */
export async function findStoredBodyHashes(db: Queryable, eventIds: string[]): Promise<Map<string, Buffer>> {
  const { rows } = await db.query<{ event_id: string; body_sha256: Buffer }>(
    'select event_id, body_sha256 from events where event_id = any($1::text[])',
    [eventIds],
  );
  return new Map(rows.map((row) => [row.event_id, row.body_sha256]));
}
