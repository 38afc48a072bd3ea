import type { Queryable } from './pool.ts';

export type EventCounts = { received: number; failed: number; quarantined: number; conflicts: number };

/** Counts the deliveries that still need attention; reads only the partial index of unprocessed rows. */
export async function countEventsByStatus(db: Queryable): Promise<EventCounts> {
  const { rows } = await db.query<EventCounts>(
    `select count(*) filter (where status = 'received')::int as received,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where status = 'quarantined')::int as quarantined,
            (select count(*) from event_conflicts)::int as conflicts
       from events
      where status <> 'processed'`,
  );
  return rows[0] ?? { received: 0, failed: 0, quarantined: 0, conflicts: 0 };
}
