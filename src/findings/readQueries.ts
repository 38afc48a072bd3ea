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
