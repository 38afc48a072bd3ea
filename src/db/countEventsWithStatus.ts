import type { Queryable } from './pool.ts';

export async function countEventsWithStatus(db: Queryable, statuses: string[]): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'select count(*)::int as count from events where status = any($1::text[])',
    [statuses],
  );
  return rows[0]?.count ?? 0;
}
