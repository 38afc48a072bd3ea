import type { Queryable } from './pool.ts';

/** Deliveries carrying an unknown value, per field: the metric, which never labels by value. */
export async function countUnknownValuesByField(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ field: string; deliveries: number }>(
    `select field, sum(deliveries)::bigint as deliveries from unknown_values group by field`,
  );
  return new Map(rows.map((row) => [row.field, row.deliveries]));
}
