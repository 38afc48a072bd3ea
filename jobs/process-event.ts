import { z } from 'zod';
import { defineJob } from '../src/queue/job.ts';
import { PROCESS_EVENT_QUEUE } from '../src/webhooks/storeDelivery.ts';

/** Turns one stored delivery into projections. Placeholder until the projections issue: it only logs. */
export default defineJob({
  name: PROCESS_EVENT_QUEUE,
  payloadSchema: z.object({ id: z.number().int().positive() }),
  queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  async handle(payload, context) {
    context.log.debug({ eventRowId: payload.id }, 'event received for processing');
  },
});
