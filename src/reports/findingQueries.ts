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
 * How the match rates reach each payment's reconciliation. `joined`: one pass over every reconciliation,
 * hashed against the day's payments, cheapest when the day is a large share of them (a young database, or a
 * day with most of the payments). `byKey`: each of the day's payments looks its reconciliation up by key, so
 * the query grows with the day and not with the years kept. Left to itself the planner hashed a day of 5,479
 * payments against 2,000,000 reconciliations (0.199 s, against 0.011 s on a database of that day alone;
 * docs/performance.md), while looking 200,000 payments up one by one took 0.877 s where the hash took 0.004 s.
 */
export type ReconciliationAccess = 'joined' | 'byKey';

// Below this share of the reconciliations kept, the day's payments are looked up by key.
const BY_KEY_BELOW_SHARE = 0.05;

/**
 * `byKey` when the day's payments are under 5 % of the reconciliations kept (the planner's estimate of them).
 * The count stops at that share, so a day as large as the database is not counted through.
 */
export async function chooseReconciliationAccess(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<ReconciliationAccess> {
  const { rows } = await db.query<{ day: number; kept: number }>(
    `with kept as (
       select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'payment_reconciliations'::regclass)
     select (select count(*) from (
               select 1 from payments where created_at >= $1::timestamptz and created_at < $2::timestamptz
                limit (select ceil($3::float8 * n)::bigint from kept)) up_to_share)::float8 as day,
            (select n from kept) as kept`,
    [from, to, BY_KEY_BELOW_SHARE],
  );
  const { day, kept } = rows[0] as { day: number; kept: number };
  return day < BY_KEY_BELOW_SHARE * kept ? 'byKey' : 'joined';
}

const DAY_WITH_RECONCILIATIONS: Record<ReconciliationAccess, string> = {
  joined: `day as (
       select p.id, p.account_type, p.account_id, p.currency, r.unverified as unverified_fees
         from payments p join payment_reconciliations r on r.payment_id = p.id
        where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz)`,
  // A subquery in the select list is never turned into a join; `materialized` evaluates it once per row.
  byKey: `day as materialized (
       select p.id, p.account_type, p.account_id, p.currency,
              (select r.unverified from payment_reconciliations r where r.payment_id = p.id) as unverified_fees
         from payments p
        where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz)`,
};

/**
 * Per account and currency, the payments created on the day that reconciliation checked: how many passed
 * every check (no finding of theirs is open, acknowledged or accepted), and the match rate. Payments with a
 * fee that could not be verified (no configuration known) are counted apart, outside the rate. *
 * A payment's findings are found with `in`, which Postgres may answer from one hashed pass over the open
 * findings: as a correlated `exists`, the planner sized each payment's lookup from the scopes' statistics,
 * and with thousands of open findings sharing one scope (a missed-event sweep's) it scanned them all once
 * per payment (16 s for a day of 3,411 payments on bench:year's database, 0.4 s with `in`).
 */
export async function sumMatchRates(
  db: Queryable,
  from: Date,
  to: Date,
  access?: ReconciliationAccess,
): Promise<MatchRateRow[]> {
  const chosen = access ?? (await chooseReconciliationAccess(db, from, to));
  const { rows } = await db.query<MatchRateRow>(
    `with ${DAY_WITH_RECONCILIATIONS[chosen]}, checked as (
       select account_type, account_id, currency, unverified_fees > 0 as unverified,
              ('payment:' || day.id) in (select f.scope from findings f where f.status <> 'resolved') as has_findings
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
