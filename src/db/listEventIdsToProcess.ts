import type { Queryable } from './pool.ts';

/** Row ids of deliveries waiting (or failed, when asked), in arrival order, after `afterId`. */
export async function listEventIdsToProcess(
  db: Queryable,
  page: { afterId: number; limit: number; statuses: string[] },
): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `select id from events where id > $1::bigint and status = any($2::text[]) order by id limit $3::int`,
    [page.afterId, page.statuses, page.limit],
  );
  return rows.map((row) => row.id);
}
