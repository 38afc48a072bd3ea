import type { UnknownValue } from '../domain/unknownValues.ts';
import type { Queryable } from './pool.ts';

export type UnknownValueSeen = UnknownValue & { receivedAt: Date };

/**
 * Adds one delivery per value seen to `unknown_values`, in one statement for a whole batch. Times are the
 * deliveries' own, so a rebuild from the raw log gives the same rows.
 */
export async function countUnknownValues(db: Queryable, values: UnknownValueSeen[]): Promise<void> {
  if (values.length === 0) return;
  await db.query(
    `insert into unknown_values (field, value, deliveries, first_seen_at, last_seen_at)
     select field, value, count(*), min(received_at), max(received_at)
       from unnest($1::text[], $2::text[], $3::timestamptz[]) as v(field, value, received_at)
      group by field, value
      order by field, value
     on conflict (field, value) do update set
       deliveries = unknown_values.deliveries + excluded.deliveries,
       first_seen_at = least(unknown_values.first_seen_at, excluded.first_seen_at),
       last_seen_at = greatest(unknown_values.last_seen_at, excluded.last_seen_at)`,
    [
      values.map((value) => value.field),
      values.map((value) => value.value),
      values.map((value) => value.receivedAt),
    ],
  );
}
