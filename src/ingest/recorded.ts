import { z } from 'zod';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';

/** One line of a recorded-deliveries JSONL file (the format docs/webhooks.md describes, a contract). */
export const recordedDeliverySchema = z.object({
  received_at: z.iso.datetime({ offset: true }),
  headers: z.object({ [TIMESTAMP_HEADER]: z.string(), [SIGNATURE_HEADER]: z.string() }),
  body: z.string(),
});

export type RecordedDelivery = z.infer<typeof recordedDeliverySchema>;
