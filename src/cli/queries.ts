import type { Queryable } from '../db/pool.ts';

export type ExportRow = { id: number; received_at: Date; headers: Record<string, string>; raw_body: Buffer };

/** A page of webhook deliveries (API snapshots are not deliveries) in arrival order, after row `afterId`, optionally within a time window. */
export async function listEventsForExport(
  db: Queryable,
  page: { afterId: number; limit: number; since: Date | null; until: Date | null },
): Promise<ExportRow[]> {
  const { rows } = await db.query<ExportRow>(
    `select id, received_at, headers, raw_body
       from events
      where id > $1::bigint and source = 'webhook'
        and ($2::timestamptz is null or received_at >= $2::timestamptz)
        and ($3::timestamptz is null or received_at < $3::timestamptz)
      order by id
      limit $4::int`,
    [page.afterId, page.since, page.until, page.limit],
  );
  return rows;
}

export async function countEventsWithStatus(db: Queryable, statuses: string[]): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'select count(*)::int as count from events where status = any($1::text[])',
    [statuses],
  );
  return rows[0]?.count ?? 0;
}

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
