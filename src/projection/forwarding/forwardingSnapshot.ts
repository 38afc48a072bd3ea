import { z } from 'zod';
import { timestamp } from '../fields.ts';

export const forwardingRequestSchema = z.looseObject({
  id: z.string().min(1),
  account_id: z.string().nullish(),
  payment_method_id: z.string().nullish(),
  url: z.string().nullish(),
  http_method: z.string().nullish(),
  provider: z.string().nullish(),
  // Kept verbatim; an unknown status ranks with pending, so a known outcome always outranks it.
  status: z.string().min(1),
  failure_reason: z.string().nullish(),
  response: z
    .looseObject({ status_code: z.number().int().nullish(), response_time_ms: z.number().int().nullish() })
    .nullish(),
  attempted_at: timestamp.nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type ForwardingRequest = z.infer<typeof forwardingRequestSchema>;

const RANK = new Map([
  ['pending', 0],
  ['processing', 1],
  ['completed', 2],
  ['failed', 2],
]);

export function forwardingStatusRank(status: string): number {
  return RANK.get(status) ?? 0;
}

/** The terminal outcome an event reports: one per request is expected, any second one is a conflict. */
export function forwardingOutcomeOf(
  eventName: string,
  request: ForwardingRequest,
): 'completed' | 'failed' | null {
  if (eventName === 'forwarding_request.completed') return 'completed';
  if (eventName === 'forwarding_request.failed') return 'failed';
  return request.status === 'completed' || request.status === 'failed' ? request.status : null;
}
