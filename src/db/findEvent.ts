import type { Queryable } from './pool.ts';

export type StoredEvent = {
  id: number;
  event_id: string | null;
  event_name: string | null;
  account_id: string | null;
  account_type: string | null;
  status: string;
  quarantine_reason: string | null;
  error: string | null;
  headers: Record<string, string>;
  body: unknown;
  received_at: Date;
  processed_at: Date | null;
  conflicts: { received_at: string; body_sha256: string }[];
};

/** One delivery by its provider event id, with the bodies that later conflicted with it. */
export async function findEvent(db: Queryable, eventId: string): Promise<StoredEvent | null> {
  const { rows } = await db.query<StoredEvent>(
    `select e.id, e.event_id, e.event_name, e.account_id, e.account_type, e.status, e.quarantine_reason,
            e.error, e.headers, e.body, e.received_at, e.processed_at,
            coalesce((select json_agg(json_build_object('received_at', c.received_at,
                                                        'body_sha256', encode(c.body_sha256, 'hex'))
                                      order by c.id)
                        from event_conflicts c where c.event_id = e.event_id), '[]') as conflicts
       from events e
      where e.event_id = $1::text`,
    [eventId],
  );
  return rows[0] ?? null;
}
