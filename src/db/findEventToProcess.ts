import type { Queryable } from './pool.ts';

export type EventToProcess = {
  id: number;
  event_name: string;
  account_id: string;
  account_type: string;
  status: string;
  received_at: Date;
  body: { data: Record<string, unknown> };
};

/** The stored delivery a process-event job points at (null if it is gone). */
export async function findEventToProcess(db: Queryable, id: number): Promise<EventToProcess | null> {
  const { rows } = await db.query<EventToProcess>(
    `select id, event_name, account_id, account_type, status, received_at, body from events where id = $1::bigint`,
    [id],
  );
  return rows[0] ?? null;
}
