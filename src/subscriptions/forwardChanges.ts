/**
 * The worker role's forwarding: queues the changes the worker's sequencing loop has numbered
 * (src/changes/sequencingLoop.ts) per subscription, and sends each claimed delivery signed (Standard Webhooks). Any number of workers run this; each claims a subscription's
 * deliveries under a lock others skip, and a claim lapses after LEASE_SECONDS, so a delivery a killed worker
 * held is sent again (at least once, under the same `webhook-id`). Three loops run alongside: queuing new
 * changes, claiming and sending, recording results. None waits for another's statements, so at hundreds of
 * changes a second a claim is never held up by the last batch of results or the last queuing. Queuing and
 * sending give way while the same worker's projection has a backlog (giveWay.ts).
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { withTransaction } from '../db/pool.ts';
import { pruneAttempts } from './attemptQueries.ts';
import { changeBody, changeId } from './changeBody.ts';
import { claimDeliveries, dropDeliveries, listSendingSubscriptions } from './claimQueries.ts';
import { type AttemptResult, queueChanges } from './deliveryQueries.ts';
import type { ForwardingContext } from './forwardingContext.ts';
import { GIVE_WAY_TIMES, givingWay } from './giveWay.ts';
import { signingSecrets } from './queries.ts';
import { recordAttempts } from './recordAttempts.ts';
import { SEND_TIMEOUT_MS, sendChange } from './sendChange.ts';
import { webhookHeaders } from './signing.ts';

/** How long a claim holds a delivery: well past the 10 s a send may take and the write of its result. */
export const LEASE_SECONDS = 30;
/** How often an idle loop looks again: part of the forwarding lag when nothing waits. */
const IDLE_MS = 100;
/** How often newly numbered changes are queued, and the subscriptions with something due listed. */
const QUEUE_EVERY_MS = 50;
const QUEUE_BATCH = 5000;
/**
 * How long answers gather before they are recorded: one transaction for a round's answers, not one for each
 * few, keeps recording's share of the database small at hundreds a second; an object's next change waits
 * this much longer for its turn.
 */
const RECORD_EVERY_MS = 50;
const PRUNE_EVERY_MS = 60_000;
const MAX_ERROR_WAIT_MS = 10_000;

/** A promise resolved by the next `notify()`: how one loop wakes the other. */
function signal() {
  let resolve: () => void = () => undefined;
  let next = new Promise<void>((done) => {
    resolve = done;
  });
  return {
    next: () => next,
    notify: () => {
      resolve();
      next = new Promise<void>((done) => {
        resolve = done;
      });
    },
  };
}

/** Starts forwarding; the returned function stops it after the sends in flight have been recorded. */
export function startForwarding(context: ForwardingContext): () => Promise<void> {
  const stopping = new AbortController();
  const log = context.log.child({ job: 'forward-changes' });
  const finished: AttemptResult[] = [];
  // The results being written now: answered, so no longer counted as being sent.
  let recording: AttemptResult[] = [];
  const inFlight = new Set<Promise<void>>();
  const sent = signal();
  const recorded = signal();
  const queued = signal();
  let lastPruned = Date.now();
  let sending: number[] = [];

  const wait = (ms: number, ...wakers: Promise<void>[]) =>
    Promise.race([sleep(ms, undefined, { signal: stopping.signal }), ...wakers]).catch(() => undefined);
  const giveWay = givingWay(
    context.backlog,
    context.giveWayTimes ?? GIVE_WAY_TIMES,
    wait,
    stopping.signal,
    log,
  );

  async function queueNewChanges(): Promise<void> {
    while (
      (await withTransaction(context.pool, (client) => queueChanges(client, QUEUE_BATCH))) === QUEUE_BATCH
    );
    sending = await listSendingSubscriptions(context.pool);
    if (Date.now() - lastPruned > PRUNE_EVERY_MS) {
      lastPruned = Date.now();
      await pruneAttempts(context.pool);
    }
  }

  async function claimAndSend(subscriptionId: number): Promise<number> {
    const answered = finished
      .filter((result) => result.subscription_id === subscriptionId)
      .map((result) => result.seq);
    const claimed = await claimDeliveries(context.pool, subscriptionId, {
      concurrency: context.config.FORWARD_CONCURRENCY,
      leaseSeconds: LEASE_SECONDS,
      answered: [
        ...answered,
        ...recording
          .filter((result) => result.subscription_id === subscriptionId)
          .map((result) => result.seq),
      ],
    });
    if (!claimed) return 0;
    // A change retention removed while it waited can no longer be sent.
    const gone = claimed.claims.filter((claim) => claim.change === null);
    if (gone.length > 0) await withTransaction(context.pool, (client) => dropDeliveries(client, gone));
    const now = new Date();
    const secrets = signingSecrets(claimed.subscription, now);
    for (const { change, ...claim } of claimed.claims) {
      if (!change) continue;
      const body = changeBody(change);
      const id = changeId(claim.seq);
      const attempt = sendChange(
        claimed.subscription.url,
        webhookHeaders(secrets, id, body, now),
        body,
        SEND_TIMEOUT_MS,
      ).then((result) => {
        finished.push({ ...claim, ...result, attempted_at: now });
        sent.notify();
      });
      inFlight.add(attempt);
      void attempt.finally(() => inFlight.delete(attempt));
    }
    return claimed.claims.length;
  }

  /** Queues newly numbered changes, and lists the subscriptions with something due, every QUEUE_EVERY_MS. */
  async function queueLoop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      try {
        await giveWay();
        await queueNewChanges();
        queued.notify();
        errors = 0;
        await wait(QUEUE_EVERY_MS);
      } catch (err) {
        errors += 1;
        log.error(err, 'forward-changes: could not queue changes; trying again');
        await wait(Math.min(IDLE_MS * 2 ** errors, MAX_ERROR_WAIT_MS));
      }
    }
  }

  /**
   * Claims and sends what is due; goes round again as soon as results free slots or objects' turns, or new
   * changes are queued. Queuing and recording run alongside, so a claim never waits for either.
   */
  async function sendLoop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      try {
        await giveWay();
        let claims = 0;
        for (const subscriptionId of sending) claims += await claimAndSend(subscriptionId);
        errors = 0;
        // An answer frees a slot, a recorded one may give an object its next turn: either is a reason to claim.
        await wait(claims > 0 ? QUEUE_EVERY_MS : IDLE_MS, recorded.next(), sent.next(), queued.next());
      } catch (err) {
        errors += 1;
        log.error(err, 'forward-changes: could not claim changes; trying again');
        await wait(Math.min(IDLE_MS * 2 ** errors, MAX_ERROR_WAIT_MS));
      }
    }
  }

  async function recordFinished(): Promise<void> {
    const results = finished.splice(0, finished.length);
    if (results.length === 0) return;
    recording = results;
    try {
      await recordAttempts(context, results);
      recorded.notify();
    } catch (err) {
      // Kept for the next try; if this process dies first, the claims lapse and the changes go out again.
      finished.unshift(...results);
      throw err;
    } finally {
      recording = [];
    }
  }

  /** Records finished attempts as they come, in batches: a delivered change hands its object's turn on. */
  async function recordLoop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      try {
        const started = Date.now();
        await recordFinished();
        errors = 0;
        await wait(RECORD_EVERY_MS - (Date.now() - started));
        if (finished.length === 0) await wait(IDLE_MS, sent.next());
      } catch (err) {
        errors += 1;
        log.error(err, 'forward-changes: could not record attempts; trying again');
        await wait(Math.min(IDLE_MS * 2 ** errors, MAX_ERROR_WAIT_MS));
      }
    }
  }

  const loops = Promise.all([queueLoop(), sendLoop(), recordLoop()]);
  return async () => {
    stopping.abort();
    await loops;
    await Promise.allSettled(inFlight);
    await recordFinished().catch((err: unknown) => log.error(err, 'forward-changes: results not recorded'));
  };
}
