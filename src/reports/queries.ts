import type { Page, Queryable } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';

export type RepricingRow = { currency: string; payments: number; charged: number; repriced: number };

/**
 * The fees a sub account was charged since `since` by configurations of the configuration's fee type, and
 * the same payments re-priced with that configuration, per currency. The seed's formula in exact numeric
 * arithmetic: amount × rate / 100 + flat, capped, rounded half-up.
 */
export async function sumRepricing(
  db: Queryable,
  query: { accountId: string; since: Date; configuration: FeeConfiguration },
): Promise<RepricingRow[]> {
  const { configuration } = query;
  const { rows } = await db.query<RepricingRow>(
    `with charged as (
       select p.currency, p.amount, f.amount as fee,
              p.amount * $4::numeric / 100 + $5::bigint as raw
         from payments p join payment_fees f on f.payment_id = p.id
        where p.account_id = $1::text and f.source_fee_type = $2::text and p.created_at >= $3::timestamptz
     )
     select currency, count(*)::int as payments, sum(fee)::bigint as charged,
            sum(round(case when $6::bigint is null then raw else least(raw, $6::bigint) end))::bigint as repriced
       from charged group by currency order by currency`,
    [
      query.accountId,
      configuration.feeType,
      query.since,
      configuration.variableRate,
      configuration.transactionFeeCents,
      configuration.feeCapCents,
    ],
  );
  return rows;
}

/** The kinds of stored report: the daily report, the fee-configuration report and a month's close report. */
export const REPORT_KINDS = ['daily', 'fee-configurations', 'period'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

// A month (YYYY-MM) is kept as its first day; each kind's period reads back as it was given.
const PERIOD_TEXT = `to_char(period, case when kind = 'period' then 'YYYY-MM' else 'YYYY-MM-DD' end)`;

/** Stores a report; `period` is the day (YYYY-MM-DD) or the month (YYYY-MM) it covers, or null. */
export async function insertReport(
  db: Queryable,
  report: { kind: ReportKind; period: string | null; body: unknown; createdAt: Date },
): Promise<number> {
  const day = report.period?.length === 7 ? `${report.period}-01` : report.period;
  const { rows } = await db.query<{ id: number }>(
    `insert into reports (kind, period, body, created_at) values ($1::text, $2::date, $3::jsonb, $4::timestamptz)
     returning id`,
    [report.kind, day, JSON.stringify(report.body), report.createdAt],
  );
  return rows[0]?.id as number;
}

export type ReportRow = {
  id: number;
  kind: ReportKind;
  period: string | null;
  body: Record<string, unknown>;
  created_at: Date;
};

/** One report by id, or (with `latestOf`) the newest of a kind. */
export async function findReport(
  db: Queryable,
  by: { id: number } | { latestOf: string },
): Promise<ReportRow | null> {
  const { rows } = await db.query<ReportRow>(
    `select id, kind, ${PERIOD_TEXT} as period, body, created_at from reports
      where ${'id' in by ? 'id = $1::bigint' : 'kind = $1::text'} order by id desc limit 1`,
    ['id' in by ? by.id : by.latestOf],
  );
  return rows[0] ?? null;
}

/** Reports newest first (without their bodies), optionally of one kind or period, one page plus one row. */
export async function listReports(db: Queryable, filter: { kind?: string; period?: string }, page: Page) {
  const backwards = page.beforeId !== null;
  const { rows } = await db.query<{ id: number; kind: ReportKind; period: string | null; created_at: Date }>(
    `select id, kind, ${PERIOD_TEXT} as period, created_at from reports
      where ($1::text is null or kind = $1::text) and ($2::text is null or ${PERIOD_TEXT} = $2::text)
        and ($3::bigint is null or id < $3::bigint) and ($4::bigint is null or id > $4::bigint)
      order by id ${backwards ? 'asc' : 'desc'} limit $5::int`,
    [filter.kind ?? null, filter.period ?? null, page.afterId, page.beforeId, page.limit + 1],
  );
  return rows;
}
