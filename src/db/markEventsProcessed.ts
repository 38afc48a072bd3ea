import type { Queryable } from './pool.ts';

export async function markEventsProcessed(db: Queryable, ids: number[]): Promise<void> {
  await db.query(
    `update events set status = 'processed', processed_at = now(), error = null where id = any($1::bigint[])`,
    [ids],
  );
}
