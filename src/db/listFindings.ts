import type { Queryable } from './pool.ts';

export type FindingFilter = { code?: string; status?: string; subjectId?: string; paymentId?: string };
export type Page = { limit: number; afterId: number | null; beforeId: number | null };

export type FindingRow = Record<string, unknown> & { id: number };

const COLUMNS = `id, code, severity, status, subject_type, subject_id, account_id, currency, expected, actual,
                 details, first_seen_at, last_seen_at, resolved_at`;

/**
 * Findings newest first, filtered, one page plus one row (so the caller knows if there is more).
 * `paymentId` matches findings about the payment or anything of it (fees, refunds, returned fees).
 */
export async function listFindings(db: Queryable, filter: FindingFilter, page: Page): Promise<FindingRow[]> {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<FindingRow>(
    `select ${COLUMNS} from findings
      where ($1::text is null or code = $1::text)
        and ($2::text is null or status = $2::text)
        and ($3::text is null or subject_id = $3::text)
        and ($4::text is null or subject_id = $4::text or details->>'payment_id' = $4::text)
        and ($5::bigint is null or id < $5::bigint)
        and ($6::bigint is null or id > $6::bigint)
      order by id ${backwards ? 'asc' : 'desc'}
      limit $7::int`,
    [
      filter.code ?? null,
      filter.status ?? null,
      filter.subjectId ?? null,
      filter.paymentId ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
    ],
  );
  return rows;
}
