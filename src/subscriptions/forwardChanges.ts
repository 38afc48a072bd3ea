/**
 * The worker role's forwarding: numbers committed changes, queues them per subscription, and sends each
 * claimed delivery signed (Standard Webhooks). Any number of workers run this; each claims a subscription's
 * deliveries under a lock others skip, and a claim lapses after LEASE_SECONDS, so a delivery a killed worker
 * held is sent again (at least once, under the same `webhook-id`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sequenceChanges } from '../changes/sequenceChanges.ts';
import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { NewAlert } from '../ops/queries.ts';
import { raiseAlerts } from '../ops/raiseAlerts.ts';
import type { Boss } from '../queue/boss.ts';
import { pruneAttempts } from './attemptQueries.ts';
import { changeBody, changeId, findChanges } from './changeBody.ts';
import {
  type AttemptResult,
  type ClaimedDelivery,
  claimDeliveries,
  type DisabledSubscription,
  dropDeliveries,
  listSendingSubscriptions,
  queueChanges,
  recordResults,
} from './deliveryQueries.ts';
import { subscriptionIdText } from './presentSubscription.ts';
import { findSubscription, signingSecrets } from './queries.ts';
import { SEND_TIMEOUT_MS, sendChange } from './sendChange.ts';
import { webhookHeaders } from './signing.ts';

/** How long a claim holds a delivery: well past the 10 s a send may take and the write of its result. */
export const LEASE_SECONDS = 30;
/** How often an idle loop looks for new changes: part of the forwarding lag when nothing waits. */
const IDLE_MS = 100;
const QUEUE_BATCH = 5000;
const PRUNE_EVERY_MS = 60_000;
const MAX_ERROR_WAIT_MS = 10_000;

export type ForwardingContext = {
  pool: Pool;
  boss: Boss;
  log: Logger;
  config: Pick<Config, 'FORWARD_CONCURRENCY' | 'ALERT_DIGEST_MINUTES'>;
};

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

/** Starts the loop; the returned function stops it after the sends in flight have been recorded. */
export function startForwarding(context: ForwardingContext): () => Promise<void> {
  const stopping = new AbortController();
  const log = context.log.child({ job: 'forward-changes' });
  const finished: AttemptResult[] = [];
  const inFlight = new Set<Promise<void>>();
  let lastPrune = 0;
  let wake: () => void = () => undefined;

  const send = async (claim: ClaimedDelivery, url: string, secrets: string[], body: string) => {
    const attempted_at = new Date();
    const id = changeId(claim.seq);
    const result = await sendChange(
      url,
      webhookHeaders(secrets, id, body, attempted_at),
      body,
      SEND_TIMEOUT_MS,
    );
    finished.push({ ...claim, ...result, attempted_at });
    wake();
  };

  async function recordFinished(): Promise<void> {
    if (finished.length === 0) return;
    const results = finished.splice(0, finished.length);
    const now = new Date();
    try {
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
        log.warn(
          { subscription: subscriptionIdText(id) },
          'subscription disabled: every attempt failed for 3 days',
        );
    } catch (err) {
      // Kept for the next round; if this process dies first, the claims lapse and the changes go out again.
      finished.unshift(...results);
      throw err;
    }
  }

  async function claimAndSend(): Promise<number> {
    let started = 0;
    for (const subscriptionId of await listSendingSubscriptions(context.pool)) {
      const claims = await withTransaction(context.pool, (client) =>
        claimDeliveries(client, subscriptionId, context.config.FORWARD_CONCURRENCY, LEASE_SECONDS),
      );
      if (claims.length === 0) continue;
      const subscription = await findSubscription(context.pool, subscriptionId);
      const changes = new Map(
        (
          await findChanges(
            context.pool,
            claims.map((claim) => claim.seq),
          )
        ).map((row) => [row.seq, row]),
      );
      const now = new Date();
      // A change retention removed while it waited can no longer be sent; a deleted subscription sends nothing.
      const gone = claims.filter((claim) => !subscription || !changes.has(claim.seq));
      if (gone.length > 0) await dropDeliveries(context.pool, gone);
      for (const claim of claims) {
        const change = changes.get(claim.seq);
        if (!subscription || !change) continue;
        const sending = send(claim, subscription.url, signingSecrets(subscription, now), changeBody(change));
        inFlight.add(sending);
        void sending.finally(() => inFlight.delete(sending));
        started += 1;
      }
    }
    return started;
  }

  async function round(): Promise<void> {
    await recordFinished();
    await sequenceChanges(context.pool);
    while (
      (await withTransaction(context.pool, (client) => queueChanges(client, QUEUE_BATCH))) === QUEUE_BATCH
    );
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      await pruneAttempts(context.pool);
    }
    await claimAndSend();
  }

  async function loop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      try {
        await round();
        errors = 0;
        // A finished send frees a slot and may unblock the object's next change: go round again at once.
        await Promise.race([woken, sleep(IDLE_MS, undefined, { signal: stopping.signal })]).catch(
          () => undefined,
        );
      } catch (err) {
        errors += 1;
        log.error(err, 'forward-changes: a round failed; trying again');
        await sleep(Math.min(IDLE_MS * 2 ** errors, MAX_ERROR_WAIT_MS), undefined, {
          signal: stopping.signal,
        }).catch(() => undefined);
      }
    }
  }

  const running = loop();
  return async () => {
    stopping.abort();
    await running;
    await Promise.allSettled(inFlight);
    await recordFinished().catch((err: unknown) => log.error(err, 'forward-changes: results not recorded'));
  };
}
