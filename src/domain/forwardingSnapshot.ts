import { z } from 'zod';
import { timestamp } from './fields.ts';

export const forwardingRequestSchema = z.looseObject({
  id: z.string().startsWith('fwd_'),
  account_id: z.string().nullish(),
  payment_method_id: z.string().nullish(),
  url: z.string().nullish(),
  http_method: z.string().nullish(),
  provider: z.string().nullish(),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  failure_reason: z.string().nullish(),
  response: z
    .looseObject({ status_code: z.number().int().nullish(), response_time_ms: z.number().int().nullish() })
    .nullish(),
  attempted_at: timestamp.nullish(),
  created_at: timestamp.nullish(),
  updated_at: timestamp.nullish(),
});

export type ForwardingRequest = z.infer<typeof forwardingRequestSchema>;

const RANK = { pending: 0, processing: 1, completed: 2, failed: 2 } as const;

export function forwardingStatusRank(status: ForwardingRequest['status']): number {
  return RANK[status];
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
