import type { Queryable } from '../db/pool.ts';
import { redactCardNumbers } from '../domain/cardNumbers.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import type { EventToProject } from './event.ts';
import { forwardingConflict } from './forwardingConflict.ts';
import {
  type ForwardingOutcomeRow,
  type ForwardingRequestRow,
  insertForwardingOutcome,
  listForwardingOutcomes,
  upsertForwardingRequest,
} from './forwardingQueries.ts';
import { forwardingOutcomeOf, forwardingRequestSchema, forwardingStatusRank } from './forwardingSnapshot.ts';

/**
 * Projects a forwarding request and records each terminal outcome event it receives; a second, different
 * outcome opens `forwarding_outcome_conflict` in the same transaction.
 */
export async function projectForwarding(db: Queryable, event: EventToProject, data: unknown): Promise<void> {
  const request = forwardingRequestSchema.parse(data);
  const updatedAt = request.updated_at ?? request.created_at ?? event.receivedAt;
  await upsertForwardingRequest(db, {
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
  } satisfies ForwardingRequestRow);
  const outcome = forwardingOutcomeOf(event.eventName, request);
  if (outcome) {
    await insertForwardingOutcome(db, {
      event_row_id: event.rowId,
      forwarding_request_id: request.id,
      status: outcome,
      failure_reason: outcome === 'failed' ? (request.failure_reason ?? null) : null,
      response_status_code: outcome === 'completed' ? (request.response?.status_code ?? null) : null,
      url: request.url ?? null,
    } satisfies ForwardingOutcomeRow);
    const outcomes = await listForwardingOutcomes(db, request.id);
    const conflict = forwardingConflict(
      request.id,
      outcomes.map((row) => ({
        status: row.status,
        failureReason: row.failure_reason,
        responseStatusCode: row.response_status_code,
      })),
    );
    const context = {
      scope: `forwarding:${request.id}`,
      accountId: request.account_id ?? event.accountId,
      currency: null,
      now: new Date(),
    };
    await recordFindings(db, context, conflict ? [conflict] : []);
  }
}
