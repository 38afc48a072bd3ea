import { z } from 'zod';
import { processStoredEvent } from '../src/projections/processStoredEvent.ts';
import { defineJob } from '../src/queue/job.ts';
import { PROCESS_EVENT_QUEUE } from '../src/webhooks/storeDelivery.ts';

/** Turns one stored delivery into projections. Failures are retried with back-off, then stay `failed`. */
export default defineJob({
  name: PROCESS_EVENT_QUEUE,
  payloadSchema: z.object({ id: z.number().int().positive() }),
  queue: { retryLimit: 4, retryDelay: 2, retryBackoff: true, retryDelayMax: 300 },
  batchSize: 20,
  async handle(payload, context) {
    const outcome = await processStoredEvent(context.pool, payload.id);
    context.log.debug({ eventRowId: payload.id, outcome }, 'event processed');
  },
});
