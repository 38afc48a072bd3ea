import type { Queryable } from './pool.ts';

export type OpenFindingRow = {
  account_type: string;
  currency: string | null;
  code: string;
  findings: number;
  at_stake: number;
};

// Money at stake: the gap between expected and actual cents, or the amount a finding is about.
export const AT_STAKE = `case when jsonb_typeof(f.expected) = 'number' and jsonb_typeof(f.actual) = 'number'
                               then abs((f.expected)::text::numeric - (f.actual)::text::numeric)
                             when jsonb_typeof(f.details->'amount') = 'number' then (f.details->>'amount')::numeric
                             else 0 end`;

/**
 * Findings open at `until`, by code, with the money at stake. The account type comes from what Tally
 * projected for the account (findings about an account never seen in payments count as `unknown`).
 */
export async function sumOpenFindings(db: Queryable, until: Date): Promise<OpenFindingRow[]> {
  const { rows } = await db.query<OpenFindingRow>(
    `with accounts as (
       select account_id, account_type from payments union select account_id, account_type from checkouts
       union select account_id, account_type from forwarding_requests
     )
     select coalesce(a.account_type, 'unknown') as account_type, f.currency, f.code, count(*)::int as findings,
            coalesce(sum(${AT_STAKE}), 0)::bigint as at_stake
       from findings f left join accounts a on a.account_id = f.account_id
      where f.first_seen_at < $1::timestamptz and (f.status = 'open' or f.resolved_at >= $1::timestamptz)
      group by 1, 2, 3
      order by 1, 2, 3`,
    [until],
  );
  return rows;
}
