import type { Queryable } from './pool.ts';
import { AT_STAKE } from './sumOpenFindings.ts';

/** The open findings with the most money at stake, for the report's links to payment detail. */
export async function listTopFindings(db: Queryable, until: Date, limit: number) {
  const { rows } = await db.query<{
    id: number;
    code: string;
    severity: string;
    subject_type: string;
    subject_id: string;
    payment_id: string | null;
    currency: string | null;
    at_stake: number;
  }>(
    `select f.id, f.code, f.severity, f.subject_type, f.subject_id, f.currency,
            case when f.subject_type = 'payment' then f.subject_id else f.details->>'payment_id' end as payment_id,
            (${AT_STAKE})::bigint as at_stake
       from findings f
      where f.first_seen_at < $1::timestamptz and (f.status = 'open' or f.resolved_at >= $1::timestamptz)
      order by at_stake desc, f.id
      limit $2::int`,
    [until, limit],
  );
  return rows;
}
