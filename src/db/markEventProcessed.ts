import type { Queryable } from './pool.ts';

export async function markEventProcessed(db: Queryable, id: number): Promise<void> {
  await db.query(
    `update events set status = 'processed', processed_at = now(), error = null where id = $1::bigint`,
    [id],
  );
}
