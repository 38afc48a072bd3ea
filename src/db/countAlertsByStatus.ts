import type { Queryable } from './pool.ts';

export async function countAlertsByStatus(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ status: string; count: number }>(
    'select status, count(*)::int as count from alerts group by status',
  );
  return new Map(rows.map((row) => [row.status, row.count]));
}
