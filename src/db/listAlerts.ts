import type { Page } from './listFindings.ts';
import type { Queryable } from './pool.ts';

/** Alerts newest first, optionally of one status or kind, one page plus one row. */
export async function listAlerts(
  db: Queryable,
  filter: { status?: string; kind?: string },
  page: Page,
): Promise<(Record<string, unknown> & { id: number })[]> {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query(
    `select id, kind, subject_id, account_id, payload, status, attempts, last_error, created_at, sent_at
       from alerts
      where ($1::text is null or status = $1::text) and ($2::text is null or kind = $2::text)
        and ($3::bigint is null or id < $3::bigint) and ($4::bigint is null or id > $4::bigint)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $5::int`,
    [filter.status ?? null, filter.kind ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}
