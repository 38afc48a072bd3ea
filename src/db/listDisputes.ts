import type { Page } from './listFindings.ts';
import type { Queryable } from './pool.ts';

export type DisputeFilter = { status?: string | undefined; accountId?: string | undefined };

/**
 * Disputes newest first (by when Tally first projected them), filtered, one page plus one row. `id` is
 * the row number the cursor pages by; `dispute_id` is the provider's `dp_` id.
 */
export async function listDisputes(db: Queryable, filter: DisputeFilter, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<Record<string, unknown> & { id: number; dispute_id: string }>(
    `select row_id as id, id as dispute_id, payment_id, account_id, account_type, amount, currency, reason,
            to_char(due_date, 'YYYY-MM-DD') as due_date, status, created_at, updated_at
       from disputes
      where ($1::text is null or status = $1::text)
        and ($2::text is null or account_id = $2::text)
        and ($3::bigint is null or row_id < $3::bigint) and ($4::bigint is null or row_id > $4::bigint)
      order by row_id ${backwards ? 'asc' : 'desc'}
      limit $5::int`,
    [filter.status ?? null, filter.accountId ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}
