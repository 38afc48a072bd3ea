import type { Queryable } from '../db/pool.ts';

export type ExportRow = { id: number; received_at: Date; headers: Record<string, string>; raw_body: Buffer };

/**
 * A page of webhook deliveries (API snapshots are not deliveries) whose body is kept, in arrival order,
 * after row `afterId`, optionally within a time window.
 */
export async function listEventsForExport(
  db: Queryable,
  page: { afterId: number; limit: number; since: Date | null; until: Date | null },
): Promise<ExportRow[]> {
  const { rows } = await db.query<ExportRow>(
    `select id, received_at, headers, raw_body
       from events
      where id > $1::bigint and source = 'webhook' and body_purged_at is null
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

/** Webhook deliveries in the window whose body retention purged: export cannot write them. */
export async function countPurgedForExport(
  db: Queryable,
  window: { since: Date | null; until: Date | null },
): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `select count(*)::int as count from events
      where source = 'webhook' and body_purged_at is not null
        and ($1::timestamptz is null or received_at >= $1::timestamptz)
        and ($2::timestamptz is null or received_at < $2::timestamptz)`,
    [window.since, window.until],
  );
  return rows[0]?.count ?? 0;
}

/** Processed deliveries whose body retention purged: a rebuild cannot replay them. */
export async function countPurgedDeliveries(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `select count(*)::int as count from events where body_purged_at is not null and status <> 'quarantined'`,
  );
  return rows[0]?.count ?? 0;
}
