import type { Page } from './listFindings.ts';
import type { Queryable } from './pool.ts';

/** Reports newest first (without their bodies), optionally of one kind or period, one page plus one row. */
export async function listReports(db: Queryable, filter: { kind?: string; period?: string }, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<{ id: number; kind: string; period: string | null; created_at: Date }>(
    `select id, kind, to_char(period, 'YYYY-MM-DD') as period, created_at from reports
      where ($1::text is null or kind = $1::text) and ($2::date is null or period = $2::date)
        and ($3::bigint is null or id < $3::bigint) and ($4::bigint is null or id > $4::bigint)
      order by id ${backwards ? 'asc' : 'desc'} limit $5::int`,
    [filter.kind ?? null, filter.period ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}
