import type { Queryable } from '../db/pool.ts';

/** A subscription as stored; the secrets never leave the API but in the answer that made them. */
export type SubscriptionRow = {
  id: number;
  url: string;
  types: string[];
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  enabled: boolean;
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: Date | null;
  queued_through: number;
  failing_since: Date | null;
  last_delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type NewSubscription = { url: string; types: string[]; description: string | null; secret: string };

/** A new subscription receives the changes sequenced from now on. */
export async function insertSubscription(
  db: Queryable,
  subscription: NewSubscription,
): Promise<SubscriptionRow> {
  const { rows } = await db.query<SubscriptionRow>(
    `insert into subscriptions (url, types, description, secret, queued_through)
     values ($1, $2::text[], $3, $4, (select last_seq from change_sequencer))
     returning *`,
    [subscription.url, subscription.types, subscription.description, subscription.secret],
  );
  return rows[0] as SubscriptionRow;
}

export async function listSubscriptions(db: Queryable): Promise<SubscriptionRow[]> {
  const { rows } = await db.query<SubscriptionRow>('select * from subscriptions order by id');
  return rows;
}

export async function findSubscription(db: Queryable, id: number): Promise<SubscriptionRow | null> {
  const { rows } = await db.query<SubscriptionRow>('select * from subscriptions where id = $1', [id]);
  return rows[0] ?? null;
}

export type SubscriptionChange = { url?: string; types?: string[]; description?: string | null };

/** Changes the url, types or description; types apply to changes not yet queued for it. */
export async function updateSubscription(
  db: Queryable,
  id: number,
  change: SubscriptionChange,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update subscriptions
        set url = coalesce($2, url),
            types = coalesce($3::text[], types),
            description = case when $4 then $5 else description end,
            updated_at = $6
      where id = $1`,
    [
      id,
      change.url ?? null,
      change.types ?? null,
      change.description !== undefined,
      change.description ?? null,
      now,
    ],
  );
  return rowCount === 1;
}

/** Stops sending; the changes keep being queued, so the lag grows and nothing is skipped on enabling. */
export async function disableSubscription(
  db: Queryable,
  id: number,
  reason: 'manual' | 'failing',
  now: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update subscriptions set enabled = false, disabled_reason = $2, disabled_at = $3, updated_at = $3
      where id = $1 and enabled`,
    [id, reason, now],
  );
  return rowCount === 1;
}

/**
 * Sends again from where it stopped: every waiting change is due now, and its 3-day retry clock starts
 * over (a subscription disabled for failing would otherwise give up on them at the first attempt).
 */
export async function enableSubscription(db: Queryable, id: number, now: Date): Promise<void> {
  const { rowCount } = await db.query(
    `update subscriptions set enabled = true, disabled_reason = null, disabled_at = null, failing_since = null,
            updated_at = $2
      where id = $1 and not enabled`,
    [id, now],
  );
  if (rowCount === 0) return;
  await db.query(
    `update subscription_deliveries set attempts = 0, first_attempt_at = null, next_attempt_at = $2
      where subscription_id = $1 and status = 'pending'`,
    [id, now],
  );
}

/** The new secret signs first; the one it replaces keeps signing until `overlapUntil`. */
export async function rotateSecret(
  db: Queryable,
  id: number,
  secret: string,
  now: Date,
  overlapUntil: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update subscriptions
        set previous_secret = secret, previous_secret_until = $3, secret = $2, updated_at = $4
      where id = $1`,
    [id, secret, overlapUntil, now],
  );
  return rowCount === 1;
}

export async function deleteSubscription(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('delete from subscriptions where id = $1', [id]);
  return rowCount === 1;
}

/** The secrets that sign a delivery at `now`: the current one, then the previous one during its overlap. */
export function signingSecrets(
  row: Pick<SubscriptionRow, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  now: Date,
) {
  const previous =
    row.previous_secret && row.previous_secret_until && row.previous_secret_until > now
      ? [row.previous_secret]
      : [];
  return [row.secret, ...previous];
}
