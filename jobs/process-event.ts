import { processStoredEvents } from '../src/projection/processStoredEvent.ts';
import { defineJob } from '../src/queue/job.ts';

/** Turns stored deliveries into projections, a batch per transaction. Failures retry with back-off. */
export default defineJob('process-event', {
  batchSize: 100,
  async handleBatch(payloads, context) {
    const failures = await processStoredEvents(
      context,
      payloads.map((payload) => payload.id),
    );
    return payloads.map((payload) => failures.get(payload.id) ?? null);
  },
});
