import type { Queryable } from './pool.ts';

/** Jobs waiting (created or retrying) per queue, counted exactly from pg-boss's job table. */
export async function countQueuedJobs(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; queued: number }>(
    `select name, count(*)::int as queued from pgboss.job where state in ('created', 'retry') group by name`,
  );
  return new Map(rows.map((row) => [row.name, row.queued]));
}
