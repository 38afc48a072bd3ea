import type { Page } from './listFindings.ts';
import type { Queryable } from './pool.ts';

export type AchReturnFilter = { code?: string; category?: string; late?: boolean; accountId?: string };

/** ACH returns (the `ach_return` findings) newest first, filtered, one page plus one row. */
export async function listAchReturns(db: Queryable, filter: AchReturnFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number }>(
    `select id, subject_id as payment_id, account_id, currency, details->>'code' as code,
            details->>'category' as category, (details->>'retryable')::boolean as retryable,
            (details->>'known')::boolean as known, (details->>'late')::boolean as late,
            (details->>'amount')::bigint as amount, details->>'meaning' as meaning,
            details->>'error_code' as error_code, details->>'description' as description,
            details->>'succeeded_at' as succeeded_at, details->>'failed_at' as failed_at,
            status, first_seen_at
       from findings
      where code = 'ach_return'
        and ($1::text is null or upper(details->>'code') = upper($1::text))
        and ($2::text is null or details->>'category' = $2::text)
        and ($3::boolean is null or (details->>'late')::boolean = $3::boolean)
        and ($4::text is null or account_id = $4::text)
        and ($5::bigint is null or id < $5::bigint) and ($6::bigint is null or id > $6::bigint)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $7::int`,
    [
      filter.code ?? null,
      filter.category ?? null,
      filter.late ?? null,
      filter.accountId ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}
