import type { SpanContext } from '@opentelemetry/api';
import type { Pool } from '../db/pool.ts';
import { activeSpanContext, traceFlushes } from '../tracing/spans.ts';
import type { NewEvent } from './queries.ts';
import { type StoreOutcome, storeDeliveries } from './storeDeliveries.ts';

type Waiting = {
  event: NewEvent;
  resolve: (outcome: StoreOutcome) => void;
  reject: (err: unknown) => void;
  spanContext?: SpanContext;
};

export type DeliveryWriter = { write: (event: NewEvent) => Promise<StoreOutcome> };

/**
 * Group commit for webhook deliveries. A delivery that arrives while fewer than `maxFlushes` batches are
 * being written goes out on the next tick (no added latency when idle); under load, deliveries queue while
 * batches are busy and the next one takes up to `maxBatch` of them at once. Each request is answered only
 * after the statement holding its own row commits. If a batch fails, its deliveries are retried one at a
 * time, so only the ones that fail alone get an error (503).
 */
export function createDeliveryWriter(pool: Pool, options = { maxBatch: 64, maxFlushes: 4 }): DeliveryWriter {
  const waiting: Waiting[] = [];
  let flushing = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || flushing >= options.maxFlushes || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const batch = waiting.splice(0, options.maxBatch);
      if (batch.length === 0) return;
      flushing += 1;
      flush(batch).finally(() => {
        flushing -= 1;
        schedule();
      });
      schedule();
    });
  };

  const flush = traceFlushes(async (batch: Waiting[]): Promise<void> => {
    try {
      const outcomes = await storeDeliveries(
        pool,
        batch.map((item) => item.event),
      );
      batch.forEach((item, index) => {
        item.resolve(outcomes[index] as StoreOutcome);
      });
    } catch (err) {
      if (batch.length === 1) {
        batch[0]?.reject(err);
        return;
      }
      for (const item of batch) {
        await storeDeliveries(pool, [item.event]).then(
          ([outcome]) => item.resolve(outcome as StoreOutcome),
          item.reject,
        );
      }
    }
  });

  return {
    write(event) {
      return new Promise<StoreOutcome>((resolve, reject) => {
        waiting.push({ event, resolve, reject, spanContext: activeSpanContext() });
        schedule();
      });
    },
  };
}
