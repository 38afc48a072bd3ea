import type { EventToProcess } from './findEventToProcess.ts';
import type { Queryable } from './pool.ts';

/** The stored deliveries that a batch of process-event jobs points at. */
export async function findEventsToProcess(db: Queryable, ids: number[]): Promise<EventToProcess[]> {
  const { rows } = await db.query<EventToProcess>(
    `select id, event_name, account_id, account_type, status, received_at, body
       from events where id = any($1::bigint[])`,
    [ids],
  );
  return rows;
}
