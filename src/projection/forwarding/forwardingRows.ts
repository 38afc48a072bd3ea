import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { EventToProject } from '../event.ts';
import type { ForwardingOutcomeRow, ForwardingRequestRow } from './forwardingQueries.ts';
import { forwardingOutcomeOf, forwardingRequestSchema, forwardingStatusRank } from './forwardingSnapshot.ts';

export type ForwardingRows = {
  request: ForwardingRequestRow;
  /** The terminal outcome the event reports, if any: each is kept, a second different one is a conflict. */
  outcome: ForwardingOutcomeRow | null;
  /** The account a conflict finding is filed under. */
  accountId: string;
};

/** The rows of a forwarding request snapshot and of the terminal outcome its event reports. */
export function forwardingRowsOf(event: EventToProject, data: unknown): ForwardingRows {
  const request = forwardingRequestSchema.parse(data);
  const updatedAt = request.updated_at ?? request.created_at ?? event.receivedAt;
  const outcome = forwardingOutcomeOf(event.eventName, request);
  return {
    request: {
      id: request.id,
      account_id: request.account_id ?? event.accountId,
      account_type: event.accountType,
      payment_method_id: request.payment_method_id ?? null,
      url: request.url ?? null,
      http_method: request.http_method ?? null,
      provider: request.provider ?? null,
      status: request.status,
      status_rank: forwardingStatusRank(request.status),
      status_updated_at: updatedAt,
      status_event_row_id: event.rowId,
      failure_reason: request.failure_reason ?? null,
      response_status_code: request.response?.status_code ?? null,
      response_time_ms: request.response?.response_time_ms ?? null,
      attempted_at: request.attempted_at ?? null,
      created_at: request.created_at ?? null,
      updated_at: updatedAt,
      event_row_id: event.rowId,
      delivered_updated_at: event.source === 'webhook' ? updatedAt : null,
      snapshot: redactCardNumbers(data),
    },
    outcome: outcome && {
      event_row_id: event.rowId,
      forwarding_request_id: request.id,
      status: outcome,
      failure_reason: outcome === 'failed' ? (request.failure_reason ?? null) : null,
      response_status_code: outcome === 'completed' ? (request.response?.status_code ?? null) : null,
      url: request.url ?? null,
    },
    accountId: request.account_id ?? event.accountId,
  };
}
