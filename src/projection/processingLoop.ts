import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { BATCH_BUDGET_MS, type ProcessingContext, processNextEvents } from './processStoredEvent.ts';
import type { ProjectionBacklog } from './projectionBacklog.ts';

export type ProcessingOptions = {
  /** Deliveries claimed and projected per transaction. */
  batchSize: number;
  /** Batches in flight at once in this process (each on its own connection). */
  concurrency: number;
  /** How long an idle loop waits before looking for new deliveries again: the worker's lag when idle. */
  idleMilliseconds: number;
  /** How long one batch may take (`BATCH_BUDGET_MS`, docs/reliability.md); smaller in tests. */
  batchBudgetMilliseconds: number;
};

export const PROCESSING_DEFAULTS: ProcessingOptions = {
  batchSize: 500,
  concurrency: 2,
  idleMilliseconds: 200,
  batchBudgetMilliseconds: BATCH_BUDGET_MS,
};

// After an error (the database gone, say) a loop waits longer each time, up to this, before trying again.
const MAX_ERROR_WAIT_MS = 10_000;

/**
 * Projects stored deliveries as they arrive: each loop claims the oldest waiting batch, projects it, and goes
 * straight on while batches come back full (a backlog), or waits `idleMilliseconds` when there is nothing.
 * `backlog`, when given, is told each batch's size (the worker's forwarding reads it). Returns a stop function
 * that lets the batches in flight finish.
 */
export function startEventProcessing(
  context: ProcessingContext & { log: Logger; backlog?: ProjectionBacklog },
  options: ProcessingOptions = PROCESSING_DEFAULTS,
): () => Promise<void> {
  const stopping = new AbortController();
  const log = context.log.child({ job: 'process-event' });

  const wait = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  async function loop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      try {
        const { claimed, failures } = await processNextEvents(
          context,
          options.batchSize,
          options.batchBudgetMilliseconds,
        );
        errors = 0;
        context.backlog?.noteBatch(claimed, options.batchSize);
        for (const [id, err] of failures)
          log.error({ deliveryId: id, err }, 'process-event failed: delivery kept as failed');
        if (claimed < options.batchSize) await wait(options.idleMilliseconds);
      } catch (err) {
        errors += 1;
        // Nothing is being projected while this loop waits: not a backlog forwarding should give way to.
        context.backlog?.noteBatch(0, options.batchSize);
        log.error(err, 'process-event: could not claim or project a batch; trying again');
        await wait(Math.min(options.idleMilliseconds * 2 ** errors, MAX_ERROR_WAIT_MS));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency }, loop);
  return async () => {
    stopping.abort();
    await Promise.all(loops);
  };
}
