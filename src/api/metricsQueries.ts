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

/**
 * How long the oldest delivery waiting to be projected has waited, in seconds (0: none waits): the worker's
 * lag behind ingest.
 */
export async function findOldestWaitingDeliverySeconds(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seconds: number | null }>(
    `select extract(epoch from now() - min(received_at))::float8 as seconds
       from events
      where status = 'received'`,
  );
  return Math.max(0, rows[0]?.seconds ?? 0);
}

/** Resolves when the database answers a query; the scrape reports whether it did. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('select 1');
}
