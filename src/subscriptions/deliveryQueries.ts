import type { PoolClient, Queryable } from '../db/pool.ts';
import type { AttemptOutcome } from './attemptQueries.ts';

// A change is of a subscription's types when it names it exactly or by its object (`payment.*`), as
// src/changes/changeTypes.ts `typeMatches` says; no types: every type.
const OF_TYPES = (types: string, type: string) =>
  `(cardinality(${types}) = 0 or ${type} = any(${types}) or split_part(${type}, '.', 1) || '.*' = any(${types}))`;

/**
 * Queues, for each subscription no other worker is queuing for, the next `limit` sequenced changes after
 * where it stopped, those of its types as deliveries. Disabled subscriptions are queued too: their lag shows
 * what waits, and enabling them resumes from there. Returns how many changes were passed over.
 */
export async function queueChanges(client: PoolClient, limit: number): Promise<number> {
  const { rows } = await client.query<{ passed: number }>(
    `with subscription as (
       select id, types, queued_through from subscriptions
        where queued_through < (select last_seq from change_sequencer)
        order by id for update skip locked
     ), next as (
       select s.id as subscription_id, s.types, c.seq, c.type, c.object, c.object_id, c.recorded_at
         from subscription s
         cross join lateral (select seq, type, object, object_id, recorded_at from changes
                              where seq > s.queued_through order by seq limit $1) c
     ), queued as (
       insert into subscription_deliveries (subscription_id, seq, object, object_id, recorded_at)
       select subscription_id, seq, object, object_id, recorded_at from next
        where ${OF_TYPES('types', 'type')}
       on conflict do nothing
     ), moved as (
       update subscriptions s set queued_through = n.through
         from (select subscription_id, max(seq) as through, count(*) as passed from next group by 1) n
        where s.id = n.subscription_id
       returning n.passed
     )
     select coalesce(sum(passed), 0)::int as passed from moved`,
    [limit],
  );
  return rows[0]?.passed ?? 0;
}

export type ClaimedDelivery = {
  subscription_id: number;
  seq: number;
  /** The claim: a result is recorded only while the delivery is still held under it. */
  leased_until: Date;
};

/**
 * Claims due deliveries of one subscription, if no other worker is claiming for it: at most `concurrency`
 * held at once across workers, and never a change while an earlier change of the same object is still
 * waiting (so each object's changes go out in `object_version` order).
 */
export async function claimDeliveries(
  client: PoolClient,
  subscriptionId: number,
  concurrency: number,
  leaseSeconds: number,
): Promise<ClaimedDelivery[]> {
  const { rows: locked } = await client.query(
    'select 1 from subscriptions where id = $1 and enabled for update skip locked',
    [subscriptionId],
  );
  if (locked.length === 0) return [];
  const { rows } = await client.query<ClaimedDelivery>(
    `update subscription_deliveries d
        -- In milliseconds: the claim comes back as a JS Date, and must compare equal when it returns.
        set leased_until = date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $3))
      where (d.subscription_id, d.seq) in (
        select w.subscription_id, w.seq from subscription_deliveries w
         where w.subscription_id = $1 and w.status = 'pending' and w.next_attempt_at <= now()
           and (w.leased_until is null or w.leased_until < now())
           and not exists (select 1 from subscription_deliveries e
                            where e.subscription_id = w.subscription_id and e.object = w.object
                              and e.object_id = w.object_id and e.status = 'pending' and e.seq < w.seq)
         order by w.next_attempt_at, w.seq
         limit greatest(0, $2 - (select count(*) from subscription_deliveries h
                                  where h.subscription_id = $1 and h.status = 'pending' and h.leased_until >= now())))
     returning d.subscription_id, d.seq, d.leased_until`,
    [subscriptionId, concurrency, leaseSeconds],
  );
  return rows;
}

/** Removes claimed deliveries that can never be sent. */
export async function dropDeliveries(db: Queryable, claims: ClaimedDelivery[]): Promise<void> {
  await db.query(
    `delete from subscription_deliveries d
      using unnest($1::bigint[], $2::bigint[]) as r(subscription_id, seq)
      where d.subscription_id = r.subscription_id and d.seq = r.seq`,
    [claims.map((claim) => claim.subscription_id), claims.map((claim) => claim.seq)],
  );
}

/** The subscriptions that may have something due. */
export async function listSendingSubscriptions(db: Queryable) {
  const { rows } = await db.query<{ id: number }>(
    `select s.id from subscriptions s
      where s.enabled and exists (select 1 from subscription_deliveries d
                                   where d.subscription_id = s.id and d.status = 'pending' and d.next_attempt_at <= now())
      order by s.id`,
  );
  return rows.map((row) => row.id);
}

export type AttemptResult = ClaimedDelivery & {
  attempted_at: Date;
  outcome: AttemptOutcome;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
};

/** The waits after each failed attempt, in seconds; after the last, every 2 hours. */
export const RETRY_SECONDS = [5, 30, 120, 600, 1800, 3600] as const;
export const RETRY_EVERY_SECONDS = 7200;
/** After this long since its first attempt, a change still failing is given up on (`failed`). */
export const GIVE_UP_SECONDS = 3 * 24 * 3600;

/**
 * Records attempts: a delivered change leaves the queue, a failed one waits for its next attempt or, 3 days
 * after its first, is `failed`. A subscription whose attempts all failed for 3 days is disabled (its changes
 * then wait, rather than fail). Returns the subscriptions this disabled.
 */
export async function recordResults(
  client: PoolClient,
  results: AttemptResult[],
  now: Date,
): Promise<DisabledSubscription[]> {
  const column = <K extends keyof AttemptResult>(key: K) => results.map((result) => result[key]);
  await client.query(
    `insert into subscription_attempts (subscription_id, seq, attempted_at, outcome, status_code, duration_ms, error)
     select * from unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::text[], $5::int[], $6::int[], $7::text[])`,
    [
      column('subscription_id'),
      column('seq'),
      column('attempted_at'),
      column('outcome'),
      column('status_code'),
      column('duration_ms'),
      column('error'),
    ],
  );
  await client.query(
    `insert into subscription_attempt_counts as n (subscription_id, outcome, attempts)
     select subscription_id, outcome, count(*) from unnest($1::bigint[], $2::text[]) as r(subscription_id, outcome)
      group by 1, 2 order by 1, 2
     on conflict (subscription_id, outcome) do update set attempts = n.attempts + excluded.attempts`,
    [column('subscription_id'), column('outcome')],
  );
  const delivered = results.filter((result) => result.outcome === 'delivered');
  const failed = results.filter((result) => result.outcome !== 'delivered');
  await client.query(
    `delete from subscription_deliveries d
      using unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as r(subscription_id, seq, leased_until)
      where d.subscription_id = r.subscription_id and d.seq = r.seq and d.leased_until = r.leased_until`,
    [
      delivered.map((r) => r.subscription_id),
      delivered.map((r) => r.seq),
      delivered.map((r) => r.leased_until),
    ],
  );
  await updateFailingSince(client, results);
  const disabled = await disableFailingSubscriptions(client, now);
  await client.query(
    `update subscription_deliveries d
        set attempts = d.attempts + 1,
            first_attempt_at = coalesce(d.first_attempt_at, r.attempted_at),
            leased_until = null,
            next_attempt_at = r.attempted_at
              + make_interval(secs => coalesce(($4::int[])[d.attempts + 1], $5)),
            status = case when s.enabled and coalesce(d.first_attempt_at, r.attempted_at)
                                               <= r.attempted_at - make_interval(secs => $6)
                          then 'failed' else 'pending' end
       from unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $7::timestamptz[])
              as r(subscription_id, seq, leased_until, attempted_at),
            subscriptions s
      where d.subscription_id = r.subscription_id and d.seq = r.seq and d.leased_until = r.leased_until
        and s.id = d.subscription_id`,
    [
      failed.map((r) => r.subscription_id),
      failed.map((r) => r.seq),
      failed.map((r) => r.leased_until),
      RETRY_SECONDS,
      RETRY_EVERY_SECONDS,
      GIVE_UP_SECONDS,
      failed.map((r) => r.attempted_at),
    ],
  );
  return disabled;
}

// Per subscription: a delivered attempt clears `failing_since`; the first failure after it sets it.
async function updateFailingSince(client: PoolClient, results: AttemptResult[]): Promise<void> {
  const bySubscription = new Map<number, { delivered: Date | null; failingSince: Date | null }>();
  for (const result of [...results].sort((a, b) => a.attempted_at.getTime() - b.attempted_at.getTime())) {
    const state = bySubscription.get(result.subscription_id) ?? { delivered: null, failingSince: null };
    if (result.outcome === 'delivered')
      Object.assign(state, { delivered: result.attempted_at, failingSince: null });
    else state.failingSince ??= result.attempted_at;
    bySubscription.set(result.subscription_id, state);
  }
  const entries = [...bySubscription].sort(([a], [b]) => a - b);
  await client.query(
    `update subscriptions s
        set last_delivered_at = coalesce(greatest(s.last_delivered_at, r.delivered), s.last_delivered_at),
            failing_since = case when r.delivered is not null then r.failing_since
                                 else coalesce(s.failing_since, r.failing_since) end
       from unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[]) as r(id, delivered, failing_since)
      where s.id = r.id`,
    [entries.map(([id]) => id), entries.map(([, s]) => s.delivered), entries.map(([, s]) => s.failingSince)],
  );
}

export type DisabledSubscription = { id: number; url: string; failing_since: Date };

async function disableFailingSubscriptions(client: PoolClient, now: Date): Promise<DisabledSubscription[]> {
  const { rows } = await client.query<DisabledSubscription>(
    `update subscriptions set enabled = false, disabled_reason = 'failing', disabled_at = $1, updated_at = $1
      where enabled and failing_since <= $1::timestamptz - make_interval(secs => $2)
      returning id, url, failing_since`,
    [now, GIVE_UP_SECONDS],
  );
  return rows;
}

/**
 * Queues the subscription's changes after `afterSeq` again, of its types, under the same ids: those already
 * delivered or given up on become due now; those still waiting keep their place.
 */
export async function replayDeliveries(db: Queryable, subscriptionId: number, afterSeq: number, now: Date) {
  const { rowCount } = await db.query(
    `insert into subscription_deliveries as d (subscription_id, seq, object, object_id, recorded_at, next_attempt_at)
     select s.id, c.seq, c.object, c.object_id, c.recorded_at, $3
       from subscriptions s join changes c on c.seq > $2 and c.seq <= s.queued_through
      where s.id = $1 and ${OF_TYPES('s.types', 'c.type')}
      order by c.seq
     on conflict (subscription_id, seq) do update
        set status = 'pending', attempts = 0, first_attempt_at = null, next_attempt_at = excluded.next_attempt_at
      where d.status = 'failed'`,
    [subscriptionId, afterSeq, now],
  );
  return rowCount ?? 0;
}
