import type { Queryable } from '../db/pool.ts';

// Test or live, from what Tally projected for the account: an account is one or the other for good, so the
// first row found says which (`unknown` for an account never seen). Looked up once per group, by index.
const ACCOUNT_TYPE = `coalesce(
       (select py.account_type from payments py where py.account_id = g.account_id limit 1),
       (select c.account_type from checkouts c where c.account_id = g.account_id limit 1),
       (select r.account_type from forwarding_requests r where r.account_id = g.account_id limit 1), 'unknown')`;

export type OpenFindingRow = {
  account_type: string;
  currency: string | null;
  code: string;
  findings: number;
  /** The sum of the findings' `at_stake`; null when none of them measures money. */
  at_stake: number | null;
};

/** Findings matching `where` (over `findings f`), by account type, currency and code, with the money at stake. */
async function sumFindingsByCode(db: Queryable, where: string, values: unknown[]): Promise<OpenFindingRow[]> {
  const { rows } = await db.query<OpenFindingRow>(
    `with g as (
       select f.account_id, f.currency, f.code, count(*) as findings, sum(f.at_stake) as at_stake
         from findings f
        where ${where}
        group by 1, 2, 3
     )
     select ${ACCOUNT_TYPE} as account_type, g.currency, g.code, sum(g.findings)::int as findings,
            sum(g.at_stake)::bigint as at_stake
       from g
      group by 1, 2, 3
      order by 1, 2, 3`,
    values,
  );
  return rows;
}

/**
 * Findings open (acknowledged included; accepted ones are reported apart) at `until`, by code, with the money at
 * stake as their rules measured it (null where none measures money). The account type comes from what Tally
 * projected for the account (findings about an account never seen in payments count as `unknown`).
 */
export async function sumOpenFindings(db: Queryable, until: Date): Promise<OpenFindingRow[]> {
  return sumFindingsByCode(
    db,
    `f.first_seen_at < $1::timestamptz
     and (f.status in ('open', 'acknowledged') or (f.status = 'resolved' and f.resolved_at >= $1::timestamptz))`,
    [until],
  );
}

/** Findings accepted (with a note) as of now, by code with the money at stake: out of the open counts, not out of sight. */
export async function sumAcceptedFindings(db: Queryable, until: Date): Promise<OpenFindingRow[]> {
  return sumFindingsByCode(db, `f.first_seen_at < $1::timestamptz and f.status = 'accepted'`, [until]);
}

export type MatchRateRow = {
  account_type: string;
  account_id: string;
  currency: string;
  checked: number;
  matched: number;
  unverified: number;
  /** matched / checked as a percentage with two decimals, or null when nothing was checked. */
  match_rate: string | null;
};

/**
 * Per account and currency, the payments created on the day that reconciliation checked: how many passed
 * every check (no finding of theirs is open, acknowledged or accepted), and the match rate. Payments with a
 * fee that could not be verified (no configuration known) are counted apart, outside the rate.
 *
 * Each payment's reconciliation is looked up by its key from a subquery the planner cannot turn into a join:
 * as a join, it hashed the day's payments against a scan of every reconciliation ever made, so the query
 * grew with the years kept (0.011 s on a day-only database, 0.199 s on a year of 2,000,000 payments;
 * docs/performance.md). The lookups grow with the day. `materialized` evaluates that subquery once per row.
 */
export async function sumMatchRates(db: Queryable, from: Date, to: Date): Promise<MatchRateRow[]> {
  const { rows } = await db.query<MatchRateRow>(
    `with day as materialized (
       select p.id, p.account_type, p.account_id, p.currency,
              (select r.unverified from payment_reconciliations r where r.payment_id = p.id) as unverified_fees
         from payments p
        where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz
     ), checked as (
       select account_type, account_id, currency, unverified_fees > 0 as unverified,
              exists (select 1 from findings f
                       where f.scope = 'payment:' || day.id and f.status <> 'resolved') as has_findings
         from day
        where unverified_fees is not null
     )
     select account_type, account_id, currency,
            count(*) filter (where not unverified)::int as checked,
            count(*) filter (where not unverified and not has_findings)::int as matched,
            count(*) filter (where unverified)::int as unverified,
            case when count(*) filter (where not unverified) = 0 then null
                 else to_char(round(100.0 * count(*) filter (where not unverified and not has_findings)
                                    / count(*) filter (where not unverified), 2), 'FM990.00') end as match_rate
       from checked
      group by 1, 2, 3
      order by 1, 2, 3`,
    [from, to],
  );
  return rows;
}
