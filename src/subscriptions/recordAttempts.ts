import { withTransaction } from '../db/pool.ts';
import type { NewAlert } from '../ops/queries.ts';
import { raiseAlerts } from '../ops/raiseAlerts.ts';
import { type AttemptResult, type DisabledSubscription, recordResults } from './deliveryQueries.ts';
import type { ForwardingContext } from './forwardingContext.ts';
import { subscriptionIdText } from './presentSubscription.ts';

/** The ops alert of a subscription disabled for failing 3 days (src/ops/alertMessage.ts words it). */
const disabledAlert =
  (now: Date) =>
  ({ id, url, failing_since }: DisabledSubscription): NewAlert => ({
    dedupeKey: `subscription_disabled:${id}:${now.toISOString()}`,
    kind: 'subscription_disabled',
    subjectId: subscriptionIdText(id),
    accountId: null,
    payload: {
      subscription_id: subscriptionIdText(id),
      url,
      failing_since: failing_since.toISOString(),
      disabled_at: now.toISOString(),
      console_path: `/console/subscriptions/${subscriptionIdText(id)}`,
    },
  });

/** Records attempts in one transaction, with the alert of each subscription they disabled. */
export async function recordAttempts(context: ForwardingContext, results: AttemptResult[]): Promise<void> {
  const now = new Date();
  const disabled = await withTransaction(context.pool, async (client) => {
    const subscriptions = await recordResults(client, results, now);
    await raiseAlerts(
      { boss: context.boss, client },
      context.config,
      subscriptions.map(disabledAlert(now)),
      now,
    );
    return subscriptions;
  });
  for (const { id } of disabled)
    context.log.warn(
      { job: 'forward-changes', subscription: subscriptionIdText(id) },
      'subscription disabled: every attempt failed for 3 days',
    );
}
