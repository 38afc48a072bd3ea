import type { PoolClient, Queryable } from '../db/pool.ts';
import { CHANGE_COLUMNS, type ChangeJson, type ChangeRow, changeRowOf } from './changeBody.ts';
import type { SubscriptionRow } from './queries.ts';

/** An object of a subscription, whose first pending change is the only one that may be sent. */
export type DeliveryObject = { subscription_id: number; object: string; object_id: string };

/**
 * Marks each object's first pending change as its head, after changes were queued, delivered, given up on
 * or dropped. The caller holds the subscriptions' rows, so no other writer changes their deliveries meanwhile.
 */
export async function promoteHeads(client: PoolClient, objects: DeliveryObject[]): Promise<void> {
  if (objects.length === 0) return;
  await client.query(
    `update subscription_deliveries d set head = true
       from (select distinct on (o.subscription_id, o.object, o.object_id) p.subscription_id, p.seq
               from unnest($1::bigint[], $2::text[], $3::text[]) as o(subscription_id, object, object_id)
               join subscription_deliveries p
                 on p.subscription_id = o.subscription_id and p.object = o.object and p.object_id = o.object_id
                and p.status = 'pending'
              order by o.subscription_id, o.object, o.object_id, p.seq) first
      where d.subscription_id = first.subscription_id and d.seq = first.seq and not d.head`,
    [objects.map((o) => o.subscription_id), objects.map((o) => o.object), objects.map((o) => o.object_id)],
  );
}

/** Locks the subscriptions' rows, in id order, for the rest of the transaction (waiting for other workers). */
export async function lockSubscriptions(client: PoolClient, ids: number[]): Promise<void> {
  await client.query('select 1 from subscriptions where id = any($1::bigint[]) order by id for update', [
    [...new Set(ids)],
  ]);
}

export type ClaimedDelivery = DeliveryObject & {
  seq: number;
  /** The claim: a result is recorded only while the delivery is still held under it. */
  leased_until: Date;
};

/** Where and how a subscription's deliveries are sent, read with its claim. */
export type SendingSubscription = Pick<
  SubscriptionRow,
  'id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'
>;

/**
 * Claims due deliveries of one subscription, if no other worker is claiming for it at the same moment: at most
 * `concurrency` being sent at once across workers (`answered`: this worker's claims whose answer came but is
 * not recorded yet), and only objects' heads, so each object's changes go out in `object_version` order. Each
 * claim comes with its change (null: retention removed it meanwhile); null when there is nothing to claim or
 * another worker is claiming.
 *
 * A claim also moves the delivery's next attempt to when the claim lapses: deliveries being sent then sit
 * with those waiting to be retried, past the due ones, so counting them reads no backlog however long it is,
 * and a killed worker's delivery falls due again when its claim lapses.
 *
 * One statement, its own transaction: claims serialize on a lock of their own, not the subscription's row,
 * which recording results holds for a whole batch, so a worker claims while its last results are written. The
 * update re-checks each row it takes (a pending head, due, not held), so a row another worker claimed, or
 * that recording or a replay changed, since the statement began is never taken twice or out of turn.
 */
export async function claimDeliveries(
  db: Queryable,
  subscriptionId: number,
  { concurrency, leaseSeconds, answered }: { concurrency: number; leaseSeconds: number; answered: number[] },
): Promise<{
  subscription: SendingSubscription;
  claims: (ClaimedDelivery & { change: ChangeRow | null })[];
} | null> {
  const { rows } = await db.query<
    ClaimedDelivery & Omit<SendingSubscription, 'id'> & { change: ChangeJson | null }
  >(
    // In milliseconds: the claim comes back as a JS Date, and must compare equal when it returns.
    `with locked as (
       select id, url, secret, previous_secret, previous_secret_until from subscriptions
        where id = $1 and enabled and pg_try_advisory_xact_lock(hashtextextended('subscription-claims:' || id, 0))
     ), due as (
       select seq from subscription_deliveries
        where subscription_id = (select id from locked) and status = 'pending' and head and next_attempt_at <= now()
          and (leased_until is null or leased_until < now())
        order by next_attempt_at, seq
        limit greatest(0, $2 - (select count(*) from subscription_deliveries
                                 where subscription_id = $1 and status = 'pending' and head
                                   and next_attempt_at > now() and leased_until >= now()
                                   and seq <> all($4::bigint[])))
     ), claimed as (
       update subscription_deliveries d
          set leased_until = date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $3)),
              next_attempt_at = date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $3))
        where d.subscription_id = $1 and d.seq = any(array(select seq from due))
          and d.status = 'pending' and d.head and d.next_attempt_at <= now()
          and (d.leased_until is null or d.leased_until < now())
       returning d.subscription_id, d.seq, d.object, d.object_id, d.leased_until
     )
     select claimed.*, locked.url, locked.secret, locked.previous_secret, locked.previous_secret_until,
            (select to_jsonb(c) from (${CHANGE_COLUMNS} from changes where changes.seq = claimed.seq) c) as change
       from claimed cross join locked order by claimed.seq`,
    [subscriptionId, concurrency, leaseSeconds, answered],
  );
  const first = rows[0];
  if (!first) return null;
  const { url, secret, previous_secret, previous_secret_until } = first;
  return {
    subscription: { id: subscriptionId, url, secret, previous_secret, previous_secret_until },
    claims: rows.map(({ subscription_id, seq, object, object_id, leased_until, change }) => ({
      subscription_id,
      seq,
      object,
      object_id,
      leased_until,
      change: change && changeRowOf(change),
    })),
  };
}

/** Removes claimed deliveries that can never be sent (their change is no longer kept). */
export async function dropDeliveries(client: PoolClient, claims: ClaimedDelivery[]): Promise<void> {
  await lockSubscriptions(
    client,
    claims.map((claim) => claim.subscription_id),
  );
  await client.query(
    `delete from subscription_deliveries d
      using unnest($1::bigint[], $2::bigint[]) as r(subscription_id, seq)
      where d.subscription_id = r.subscription_id and d.seq = r.seq`,
    [claims.map((claim) => claim.subscription_id), claims.map((claim) => claim.seq)],
  );
  await promoteHeads(client, claims);
}

/** The subscriptions that may have something due. */
export async function listSendingSubscriptions(db: Queryable) {
  const { rows } = await db.query<{ id: number }>(
    `select s.id from subscriptions s
      where s.enabled and exists (select 1 from subscription_deliveries d
                                   where d.subscription_id = s.id and d.status = 'pending' and d.head
                                     and d.next_attempt_at <= now())
      order by s.id`,
  );
  return rows.map((row) => row.id);
}
