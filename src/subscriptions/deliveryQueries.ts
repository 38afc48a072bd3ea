import type { PoolClient } from '../db/pool.ts';
import type { AttemptOutcome } from './attemptQueries.ts';
import { type ClaimedDelivery, lockSubscriptions, promoteHeads } from './claimQueries.ts';

// A change is of a subscription's types when it names it exactly or by its object (`payment.*`), as
// src/changes/changeTypes.ts `typeMatches` says; no types: every type.
const OF_TYPES = (types: string, type: string) =>
  `(cardinality(${types}) = 0 or ${type} = any(${types}) or split_part(${type}, '.', 1) || '.*' = any(${types}))`;

/**
 * Queues, for each subscription, the next `limit` sequenced changes after where it stopped, those of its
 * types as deliveries, each object's first pending one its head. It waits for the subscriptions' rows rather
 * than passing them by (recording results holds them for each batch, and a subscription passed by whenever
 * that happens would fall behind), then reads, in a statement of its own, what recording committed meanwhile.
 * Disabled subscriptions are queued too: their lag shows what waits, and enabling them resumes from there.
 * Returns how many changes were passed over.
 */
export async function queueChanges(client: PoolClient, limit: number): Promise<number> {
  const { rows: locked } = await client.query<{ id: number }>(
    `select id from subscriptions where queued_through < (select last_seq from change_sequencer)
      order by id for update`,
  );
  if (locked.length === 0) return 0;
  const { rows } = await client.query<{ passed: number }>(
    `with next as (
       select s.id as subscription_id, s.types, c.seq, c.type, c.object, c.object_id, c.recorded_at
         from subscriptions s
         cross join lateral (select seq, type, object, object_id, recorded_at from changes
                              where seq > s.queued_through order by seq limit $1) c
        where s.id = any($2::bigint[])
     ), queued as (
       insert into subscription_deliveries (subscription_id, seq, object, object_id, recorded_at, head)
       select n.subscription_id, n.seq, n.object, n.object_id, n.recorded_at,
              row_number() over (partition by n.subscription_id, n.object, n.object_id order by n.seq) = 1
              and not exists (select from subscription_deliveries p
                               where p.subscription_id = n.subscription_id and p.object = n.object
                                 and p.object_id = n.object_id and p.status = 'pending')
         from next n
        where ${OF_TYPES('n.types', 'n.type')}
       on conflict do nothing
     ), moved as (
       update subscriptions s set queued_through = n.through
         from (select subscription_id, max(seq) as through, count(*) as passed from next group by 1) n
        where s.id = n.subscription_id
       returning n.passed
     )
     select coalesce(sum(passed), 0)::int as passed from moved`,
    [limit, locked.map((row) => row.id)],
  );
  return rows[0]?.passed ?? 0;
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
  const delivered = results.filter((result) => result.outcome === 'delivered');
  const failed = results.filter((result) => result.outcome !== 'delivered');
  // Serialized with queuing, replaying and dropping for these subscriptions, which move heads too.
  await lockSubscriptions(client, column('subscription_id'));
  // The attempts, their counts, each subscription's failing state and the delivered changes leaving the
  // queue: independent writes, so one statement.
  const failing = failingSince(results);
  await client.query(
    `with attempts as (
       insert into subscription_attempts (subscription_id, seq, attempted_at, outcome, status_code, duration_ms, error)
       select * from unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::text[], $5::int[], $6::int[], $7::text[])
       returning subscription_id, outcome
     ), counted as (
       insert into subscription_attempt_counts as n (subscription_id, outcome, attempts)
       select subscription_id, outcome, count(*) from attempts group by 1, 2 order by 1, 2
       on conflict (subscription_id, outcome) do update set attempts = n.attempts + excluded.attempts
     ), failing as (
       update subscriptions s
          set last_delivered_at = coalesce(greatest(s.last_delivered_at, r.delivered), s.last_delivered_at),
              failing_since = case when r.delivered is not null then r.failing_since
                                   else coalesce(s.failing_since, r.failing_since) end
         from unnest($8::bigint[], $9::timestamptz[], $10::timestamptz[]) as r(id, delivered, failing_since)
        where s.id = r.id
     )
     delete from subscription_deliveries d
      using unnest($11::bigint[], $12::bigint[], $13::timestamptz[]) as r(subscription_id, seq, leased_until)
      where d.subscription_id = r.subscription_id and d.seq = r.seq and d.leased_until = r.leased_until`,
    [
      column('subscription_id'),
      column('seq'),
      column('attempted_at'),
      column('outcome'),
      column('status_code'),
      column('duration_ms'),
      column('error'),
      failing.map(([id]) => id),
      failing.map(([, state]) => state.delivered),
      failing.map(([, state]) => state.failingSince),
      delivered.map((r) => r.subscription_id),
      delivered.map((r) => r.seq),
      delivered.map((r) => r.leased_until),
    ],
  );
  // Only a failure can make a subscription's every attempt for 3 days a failure.
  const disabled = failed.length > 0 ? await disableFailingSubscriptions(client, now) : [];
  if (failed.length > 0) await recordFailures(client, failed);
  // A delivered or given-up change hands its object's turn to the next one.
  await promoteHeads(client, results);
  return disabled;
}

/** Failed attempts: each waits for its next attempt, or, 3 days after its first, is `failed`. */
async function recordFailures(client: PoolClient, failed: AttemptResult[]): Promise<void> {
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
}

// Per subscription: a delivered attempt clears `failing_since`; the first failure after it sets it.
function failingSince(results: AttemptResult[]) {
  const bySubscription = new Map<number, { delivered: Date | null; failingSince: Date | null }>();
  for (const result of [...results].sort((a, b) => a.attempted_at.getTime() - b.attempted_at.getTime())) {
    const state = bySubscription.get(result.subscription_id) ?? { delivered: null, failingSince: null };
    if (result.outcome === 'delivered')
      Object.assign(state, { delivered: result.attempted_at, failingSince: null });
    else state.failingSince ??= result.attempted_at;
    bySubscription.set(result.subscription_id, state);
  }
  return [...bySubscription].sort(([a], [b]) => a - b);
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
 * delivered or given up on become due now; those still waiting keep their place. Each object's heads are then
 * its first pending change again.
 */
export async function replayDeliveries(
  client: PoolClient,
  subscriptionId: number,
  afterSeq: number,
  now: Date,
) {
  await lockSubscriptions(client, [subscriptionId]);
  const { rowCount } = await client.query(
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
  await client.query(
    `update subscription_deliveries d set head = (d.seq = first.seq)
       from (select object, object_id, min(seq) as seq from subscription_deliveries
              where subscription_id = $1 and status = 'pending' group by 1, 2) first
      where d.subscription_id = $1 and d.status = 'pending' and d.object = first.object
        and d.object_id = first.object_id and d.head <> (d.seq = first.seq)`,
    [subscriptionId],
  );
  return rowCount ?? 0;
}
