import type { Page, Queryable } from '../db/pool.ts';
import { FINDING_COLUMNS } from './presentFinding.ts';

export type OpenFindingCount = {
  code: string;
  severity: string;
  /** open, or acknowledged (someone is working it); accepted and resolved ones need nothing. */
  status: string;
  /** '' when the finding measures no currency. */
  currency: string;
  open: number;
  /** Integer cents in `currency`. */
  at_stake: number;
};

/** Findings still to work, per code, severity, status and currency, with the cents at stake (for /metrics). */
export async function countOpenFindingsByCode(db: Queryable): Promise<OpenFindingCount[]> {
  const { rows } = await db.query<OpenFindingCount>(
    `select code, severity, status, coalesce(currency, '') as currency, count(*)::int as open,
            coalesce(sum(at_stake), 0)::float8 as at_stake
       from findings
      where status in ('open', 'acknowledged')
      group by code, severity, status, coalesce(currency, '')`,
  );
  return rows;
}

export type FindingAuditFilter = {
  /** First and last business day (YYYY-MM-DD), both included, in `timeZone`. */
  fromDay: string;
  toDay: string;
  timeZone: string;
  code?: string | undefined;
  status?: string | undefined;
};

/** A finding and one entry of its history; the history fields are null for a finding with none. */
export type FindingAuditRow = {
  id: number;
  code: string;
  severity: string;
  status: string;
  subject_type: string;
  subject_id: string;
  account_id: string | null;
  currency: string | null;
  expected: unknown;
  actual: unknown;
  at_stake: number | null;
  first_seen_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
  action: string | null;
  old_status: string | null;
  new_status: string | null;
  actor: string | null;
  note: string | null;
  at: Date | null;
};

/**
 * The next `limit` findings after row id `afterId` (oldest first) first seen on the business days of the
 * filter, each with every entry of its history (oldest first, or one row of nulls with none). One
 * statement, so a finding and its history come from one snapshot; the caller pages on the last id.
 */
export async function listFindingAuditBatch(
  db: Queryable,
  filter: FindingAuditFilter,
  afterId: number,
  limit: number,
): Promise<FindingAuditRow[]> {
  const { rows } = await db.query<FindingAuditRow>(
    `with batch as (
       select id, code, severity, status, subject_type, subject_id, account_id, currency, expected, actual,
              at_stake, first_seen_at, last_seen_at, resolved_at
         from findings
        where id > $1::bigint
          and first_seen_at >= ($2::date)::timestamp at time zone $4::text
          and first_seen_at < ($3::date + 1)::timestamp at time zone $4::text
          and ($5::text is null or code = $5::text)
          and ($6::text is null or status = $6::text)
        order by id
        limit $7::int)
     select batch.*, h.action, h.old_status, h.new_status, h.actor, h.note, h.created_at as at
       from batch left join finding_history h on h.finding_id = batch.id
      order by batch.id, h.id`,
    [
      afterId,
      filter.fromDay,
      filter.toDay,
      filter.timeZone,
      filter.code ?? null,
      filter.status ?? null,
      limit,
    ],
  );
  return rows;
}

export type FindingFilter = {
  code?: string | undefined;
  status?: string | undefined;
  subjectId?: string | undefined;
  paymentId?: string | undefined;
  accountId?: string | undefined;
  currency?: string | undefined;
  /** first_seen_at in [from, to) */
  from?: Date | undefined;
  to?: Date | undefined;
};

/** `newest`: by id, newest first; `at_stake`: most money at stake first, those that measure none last. */
export const FINDING_ORDERS = ['newest', 'at_stake'] as const;
export type FindingOrder = (typeof FINDING_ORDERS)[number];

// The sort key of each order; money at stake is never negative, so -1 sorts the unmeasured last.
const SORT_KEY: Record<FindingOrder, string[]> = {
  newest: ['id'],
  at_stake: ['coalesce(at_stake, -1)', 'id'],
};

// The sort key of the cursor's row ($n: its id): the page starts past it.
const boundOf = (order: FindingOrder, n: number) =>
  order === 'newest'
    ? `$${n}::bigint`
    : `(select ${SORT_KEY[order].join(', ')} from findings where id = $${n}::bigint)`;

export type FindingRow = Record<string, unknown> & { id: number };

/**
 * Findings in `order` (newest first unless told), filtered, one page plus one row (so the caller knows if
 * there is more). The page's cursors are row ids: the sort key of the cursor's row bounds the page.
 * `paymentId` matches findings about the payment or anything of it (fees, refunds, returned fees).
 */
export async function listFindings(
  db: Queryable,
  filter: FindingFilter,
  page: Page,
  order: FindingOrder = 'newest',
): Promise<FindingRow[]> {
  const backwards = page.beforeId !== null;
  const key = `(${SORT_KEY[order].join(', ')})`;
  const direction = backwards ? 'asc' : 'desc';
  const { rows } = await db.query<FindingRow>(
    `select ${FINDING_COLUMNS} from findings
      where ($1::text is null or code = $1::text)
        and ($2::text is null or status = $2::text)
        and ($3::text is null or subject_id = $3::text)
        and ($4::text is null or subject_id = $4::text or details->>'payment_id' = $4::text)
        and ($5::bigint is null or ${key} < ${boundOf(order, 5)})
        and ($6::bigint is null or ${key} > ${boundOf(order, 6)})
        and ($8::text is null or account_id = $8::text)
        and ($9::text is null or currency = $9::text)
        and ($10::timestamptz is null or first_seen_at >= $10::timestamptz)
        and ($11::timestamptz is null or first_seen_at < $11::timestamptz)
      order by ${SORT_KEY[order].map((term) => `${term} ${direction}`).join(', ')}
      limit $7::int`,
    [
      filter.code ?? null,
      filter.status ?? null,
      filter.subjectId ?? null,
      filter.paymentId ?? null,
      page.afterId,
      page.beforeId,
      page.limit + 1,
      filter.accountId ?? null,
      filter.currency ?? null,
      filter.from ?? null,
      filter.to ?? null,
    ],
  );
  return rows;
}

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
