import type { Queryable } from '../../src/db/pool.ts';
import { PROJECTION_TABLES } from '../../src/projection/eventQueries.ts';

/**
 * Every projection row as JSON, sorted. `withRowIds: false` drops the delivery row ids, which differ
 * between two databases fed the same deliveries in a different order.
 */
export async function dumpProjections(
  db: Queryable,
  options: { withRowIds: boolean },
): Promise<Record<string, unknown[]>> {
  const dump: Record<string, unknown[]> = {};
  for (const table of PROJECTION_TABLES) {
    const { rows } = await db.query<{ row: Record<string, unknown> }>(
      `select to_jsonb(t) as row from ${table} t`,
    );
    dump[table] = rows
      // A dispute's `row_id` numbers rows for cursor pagination in the order they were first projected.
      .map(({ row }) =>
        Object.fromEntries(
          Object.entries(row).filter(
            ([key]) => key !== 'row_id' && (options.withRowIds || !key.endsWith('event_row_id')),
          ),
        ),
      )
      .map((row) => JSON.stringify(row))
      .sort();
  }
  return dump;
}
