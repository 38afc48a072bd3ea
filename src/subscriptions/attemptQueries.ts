import type { Queryable } from '../db/pool.ts';

/** How an attempt ended: `delivered` is a 2xx within the time limit, everything else is retried. */
export const ATTEMPT_OUTCOMES = [
  'delivered',
  'http_error',
  'redirect',
  'timeout',
  'network_error',
  'refused_address',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** The attempts kept per subscription: its page shows the newest 100, and its recent failures. */
export const KEPT_ATTEMPTS = 1000;

export type AttemptRow = {
  id: number;
  subscription_id: number;
  seq: number;
  attempted_at: Date;
  outcome: AttemptOutcome;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
};

export async function listAttempts(
  db: Queryable,
  subscriptionId: number,
  { limit, failuresOnly = false }: { limit: number; failuresOnly?: boolean },
): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `select * from subscription_attempts
      where subscription_id = $1 and (not $3 or outcome <> 'delivered')
      order by id desc limit $2`,
    [subscriptionId, limit, failuresOnly],
  );
  return rows;
}

/** Removes each subscription's attempts older than its newest KEPT_ATTEMPTS. */
export async function pruneAttempts(db: Queryable): Promise<void> {
  // The cut-off is found once per subscription (by the newest-first index, materialized: as a join's inner
  // side it would be found again for every attempt), then one range of each is deleted.
  await db.query(
    `with kept as materialized (
       select s.id, (select b.id from subscription_attempts b where b.subscription_id = s.id
                      order by b.id desc offset $1 limit 1) as cutoff
         from subscriptions s
     )
     delete from subscription_attempts a using kept where a.subscription_id = kept.id and a.id < kept.cutoff`,
    [KEPT_ATTEMPTS - 1],
  );
}

export type SubscriptionHealth = {
  subscription_id: number;
  enabled: boolean;
  /** Seconds since the oldest change still waiting to be delivered was recorded; 0 when none waits. */
  lag_seconds: number;
  pending: number;
  failed: number;
  attempts: Partial<Record<AttemptOutcome, number>>;
};

/**
 * Each subscription's lag (its oldest undelivered change, queued or not yet queued), its waiting and given-up
 * changes, and its attempts by outcome.
 */
export async function summarizeSubscriptions(db: Queryable, now: Date): Promise<SubscriptionHealth[]> {
  const { rows } = await db.query<SubscriptionHealth>(
    `select s.id as subscription_id, s.enabled,
            greatest(0, extract(epoch from $1::timestamptz - least(d.oldest, (
              select c.recorded_at from changes c where c.seq > s.queued_through order by c.seq limit 1))))::float8
              as lag_seconds,
            coalesce(d.pending, 0)::int as pending, coalesce(d.failed, 0)::int as failed,
            coalesce((select jsonb_object_agg(n.outcome, n.attempts) from subscription_attempt_counts n
                       where n.subscription_id = s.id), '{}') as attempts
       from subscriptions s
       left join lateral (
         select min(recorded_at) filter (where status = 'pending') as oldest,
                count(*) filter (where status = 'pending') as pending,
                count(*) filter (where status = 'failed') as failed
           from subscription_deliveries where subscription_id = s.id) d on true
      order by s.id`,
    [now],
  );
  return rows.map((row) => ({ ...row, lag_seconds: row.lag_seconds ?? 0 }));
}

export type FailedDelivery = {
  seq: number;
  object: string;
  object_id: string;
  attempts: number;
  first_attempt_at: Date | null;
};

/** The changes a subscription gave up on after 3 days (a replay sends them again). */
export async function listFailedDeliveries(db: Queryable, subscriptionId: number, limit: number) {
  const { rows } = await db.query<FailedDelivery>(
    `select seq, object, object_id, attempts, first_attempt_at from subscription_deliveries
      where subscription_id = $1 and status = 'failed' order by seq limit $2`,
    [subscriptionId, limit],
  );
  return rows;
}
