import { z } from 'zod';
import { PROCESS_EVENT_QUEUE } from '../src/ingest/storeDeliveries.ts';
import { processStoredEvent, processStoredEvents } from '../src/projection/processStoredEvent.ts';
import { defineJob } from '../src/queue/job.ts';

/** Turns stored deliveries into projections, a batch per transaction. Failures retry with back-off. */
export default defineJob({
  name: PROCESS_EVENT_QUEUE,
  payloadSchema: z.object({ id: z.number().int().positive() }),
  // A batch takes well under a second; one running a minute belongs to a worker that died, and is retried.
  queue: { retryLimit: 4, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 60 },
  batchSize: 100,
  handle: (payload, context) => processStoredEvent(context, payload.id),
  async handleBatch(payloads, context) {
    const failures = await processStoredEvents(
      context,
      payloads.map((payload) => payload.id),
    );
    return payloads.map((payload) => failures.get(payload.id) ?? null);
  },
});
