import type { Queryable } from '../db/pool.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import { listEventConflicts, listQuarantinedDeliveries } from './queries.ts';

const hex = (hash: Buffer) => hash.toString('hex');

/**
 * Opens (or refreshes) `event_id_conflict` for events whose id arrived again with a different body: the
 * stored body's hash and arrival time, and every conflicting one's. Run in the transaction that stored the
 * conflict, so nobody is told of a conflict that was rolled back. An accepted one whose newest conflicting
 * body changed is closed and a new open finding follows, as for every finding. Measures no money.
 */
export async function openEventConflictFindings(db: Queryable, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  const conflicts = await listEventConflicts(db, eventIds);
  await recordFindingRuns(
    db,
    conflicts.map((event) => {
      const newest = event.conflicting.at(-1);
      return {
        context: {
          scope: `ingest:${event.event_id}`,
          accountId: event.account_id,
          currency: null,
          now: newest?.received_at ?? event.received_at,
        },
        findings: [
          {
            code: 'event_id_conflict',
            severity: 'warning',
            subjectType: 'event',
            subjectId: event.event_id,
            expected: hex(event.body_sha256),
            actual: newest ? hex(newest.body_sha256) : null,
            atStake: null,
            details: {
              stored: { body_sha256: hex(event.body_sha256), received_at: event.received_at.toISOString() },
              conflicting: event.conflicting.map((body) => ({
                body_sha256: hex(body.body_sha256),
                received_at: body.received_at.toISOString(),
              })),
            },
          },
        ],
      };
    }),
  );
}

/**
 * Opens `event_quarantined` for stored deliveries that failed envelope validation. The subject is the
 * stored delivery (its row id: a quarantined body may have no usable event id); details say why. Measures
 * no money.
 */
export async function openQuarantineFindings(db: Queryable, deliveryIds: number[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  const deliveries = await listQuarantinedDeliveries(db, deliveryIds);
  await recordFindingRuns(
    db,
    deliveries.map((delivery) => ({
      context: { scope: `ingest:${delivery.id}`, accountId: null, currency: null, now: delivery.received_at },
      findings: [
        {
          code: 'event_quarantined',
          severity: 'error',
          subjectType: 'event',
          subjectId: String(delivery.id),
          expected: null,
          actual: delivery.quarantine_reason,
          atStake: null,
          details: {
            delivery_id: delivery.id,
            reason: delivery.quarantine_reason,
            body_sha256: hex(delivery.body_sha256),
            received_at: delivery.received_at.toISOString(),
          },
        },
      ],
    })),
  );
}
