import type { Queryable } from './pool.ts';

/** Leaves the delivery visible as failed, with why; a later successful retry clears it. */
export async function markEventFailed(db: Queryable, id: number, error: string): Promise<void> {
  await db.query(`update events set status = 'failed', error = $2::text where id = $1::bigint`, [id, error]);
}
