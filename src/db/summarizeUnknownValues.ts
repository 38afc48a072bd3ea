import type { Queryable } from './pool.ts';

/** `{field: {value: deliveries}}`: what the provider sent that Tally keeps but does not know. */
export async function summarizeUnknownValues(db: Queryable): Promise<Record<string, Record<string, number>>> {
  const { rows } = await db.query<{ field: string; value: string; deliveries: number }>(
    `select field, value, deliveries from unknown_values order by field, deliveries desc, value limit 1000`,
  );
  const summary: Record<string, Record<string, number>> = {};
  for (const row of rows) summary[row.field] = { ...summary[row.field], [row.value]: row.deliveries };
  return summary;
}
