import type { Queryable } from '../db/pool.ts';

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
