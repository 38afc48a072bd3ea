/** What the API and the console do to subscriptions, each change in one transaction. */
import { type Pool, withTransaction } from '../db/pool.ts';
import { listAttempts, listFailedDeliveries, summarizeSubscriptions } from './attemptQueries.ts';
import { replayDeliveries } from './deliveryQueries.ts';
import { presentAttempt, presentFailedDelivery, presentSubscription } from './presentSubscription.ts';
import {
  disableSubscription,
  enableSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  rotateSecret,
  type SubscriptionChange,
  updateSubscription,
} from './queries.ts';
import { newSecret } from './signing.ts';

/** How long the replaced secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export async function createSubscription(
  pool: Pool,
  input: { url: string; types?: string[]; description?: string | null },
) {
  const secret = newSecret();
  const row = await insertSubscription(pool, {
    url: input.url,
    types: input.types ?? [],
    description: input.description || null,
    secret,
  });
  return { ...presentSubscription(row, undefined), secret };
}

export async function presentSubscriptions(pool: Pool, now: Date) {
  const [rows, health] = await Promise.all([listSubscriptions(pool), summarizeSubscriptions(pool, now)]);
  const byId = new Map(health.map((entry) => [entry.subscription_id, entry]));
  return rows.map((row) => presentSubscription(row, byId.get(row.id)));
}

/** The subscription with its last 100 attempts and the changes it gave up on, or null. */
export async function subscriptionDetail(pool: Pool, id: number, now: Date) {
  const row = await findSubscription(pool, id);
  if (!row) return null;
  const [health, attempts, failed] = await Promise.all([
    summarizeSubscriptions(pool, now),
    listAttempts(pool, id, { limit: 100 }),
    listFailedDeliveries(pool, id, 100),
  ]);
  return {
    ...presentSubscription(
      row,
      health.find((entry) => entry.subscription_id === id),
    ),
    recent_attempts: attempts.map(presentAttempt),
    failed_changes: failed.map(presentFailedDelivery),
  };
}

/** Applies a PATCH; false when no such subscription. */
export async function changeSubscription(
  pool: Pool,
  id: number,
  change: SubscriptionChange & { enabled?: boolean },
  now: Date,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const { enabled, ...fields } = change;
    if (!(await updateSubscription(client, id, fields, now))) return false;
    if (enabled === true) await enableSubscription(client, id, now);
    if (enabled === false) await disableSubscription(client, id, 'manual', now);
    return true;
  });
}

/** A new secret, returned once; the old one signs beside it for ROTATION_OVERLAP_MS. Null: no such subscription. */
export async function rotateSubscriptionSecret(pool: Pool, id: number, now: Date) {
  const secret = newSecret();
  const rotated = await rotateSecret(pool, id, secret, now, new Date(now.getTime() + ROTATION_OVERLAP_MS));
  if (!rotated) return null;
  const row = await findSubscription(pool, id);
  return row ? { ...presentSubscription(row, undefined), secret } : null;
}

/** Queues the subscription's changes after `afterSeq` (0: every change kept) again. */
export async function replaySubscription(pool: Pool, id: number, afterSeq: number, now: Date) {
  return withTransaction(pool, (client) => replayDeliveries(client, id, afterSeq, now));
}
