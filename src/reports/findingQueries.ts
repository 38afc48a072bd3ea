import type { Queryable } from '../db/pool.ts';
import type { OpenFindingRow } from './dailyQueries.ts';

const ACCOUNTS = `accounts as (
       select account_id, account_type from payments union select account_id, account_type from checkouts
       union select account_id, account_type from forwarding_requests
     )`;

/** Findings accepted (with a note) as of now, by code with the money at stake: out of the open counts, not out of sight. */
export async function sumAcceptedFindings(db: Queryable, until: Date): Promise<OpenFindingRow[]> {
  const { rows } = await db.query<OpenFindingRow>(
    `with ${ACCOUNTS}
     select coalesce(a.account_type, 'unknown') as account_type, f.currency, f.code, count(*)::int as findings,
            sum(f.at_stake)::bigint as at_stake
       from findings f left join accounts a on a.account_id = f.account_id
      where f.first_seen_at < $1::timestamptz and f.status = 'accepted'
      group by 1, 2, 3
      order by 1, 2, 3`,
    [until],
  );
  return rows;
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
 */
export async function sumMatchRates(db: Queryable, from: Date, to: Date): Promise<MatchRateRow[]> {
  const { rows } = await db.query<MatchRateRow>(
    `with day as (
       select p.id, p.account_type, p.account_id, p.currency, r.unverified > 0 as unverified,
              exists (select 1 from findings f
                       where f.scope = 'payment:' || p.id and f.status <> 'resolved') as has_findings
         from payments p join payment_reconciliations r on r.payment_id = p.id
        where p.created_at >= $1::timestamptz and p.created_at < $2::timestamptz
     )
     select account_type, account_id, currency,
            count(*) filter (where not unverified)::int as checked,
            count(*) filter (where not unverified and not has_findings)::int as matched,
            count(*) filter (where unverified)::int as unverified,
            case when count(*) filter (where not unverified) = 0 then null
                 else to_char(round(100.0 * count(*) filter (where not unverified and not has_findings)
                                    / count(*) filter (where not unverified), 2), 'FM990.00') end as match_rate
       from day
      group by 1, 2, 3
      order by 1, 2, 3`,
    [from, to],
  );
  return rows;
}
