import type { AttemptRow, FailedDelivery, SubscriptionHealth } from './attemptQueries.ts';
import { changeId } from './changeBody.ts';
import type { SubscriptionRow } from './queries.ts';

export const SUBSCRIPTION_ID = /^sub_[1-9]\d{0,15}$/;
export const subscriptionIdText = (id: number) => `sub_${id}`;

const NO_HEALTH = { lag_seconds: 0, pending: 0, failed: 0, attempts: {} };

/** A subscription as the API and the console show it: never its secrets. */
export function presentSubscription(row: SubscriptionRow, health: SubscriptionHealth | undefined) {
  const { lag_seconds, pending, failed, attempts } = health ?? NO_HEALTH;
  return {
    id: subscriptionIdText(row.id),
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    state: !row.enabled ? 'disabled' : row.failing_since ? 'failing' : 'active',
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    failing_since: row.failing_since?.toISOString() ?? null,
    last_delivered_at: row.last_delivered_at?.toISOString() ?? null,
    previous_secret_until: row.previous_secret_until?.toISOString() ?? null,
    lag_seconds: Math.round(lag_seconds * 1000) / 1000,
    pending,
    failed,
    attempts,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentAttempt(row: AttemptRow) {
  return {
    change_id: changeId(row.seq),
    attempted_at: row.attempted_at.toISOString(),
    outcome: row.outcome,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
  };
}

export function presentFailedDelivery(row: FailedDelivery) {
  return {
    change_id: changeId(row.seq),
    object: row.object,
    object_id: row.object_id,
    attempts: row.attempts,
    first_attempt_at: row.first_attempt_at?.toISOString() ?? null,
  };
}
