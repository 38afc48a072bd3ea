import { ZodError } from 'zod';
import { type Pool, type PoolClient, withTransaction } from '../db/pool.ts';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import { resolveDeliveredMissedEvents } from '../findings/queries.ts';
import { describeIssues } from '../issues.ts';
import { enqueueLineSyncs } from '../payouts/enqueueLineSyncs.ts';
import { enqueuePayoutReconciliations } from '../payouts/enqueuePayoutReconciliations.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueueReconciliations } from '../queue/enqueueReconciliations.ts';
import { markPaymentsProjected } from '../reconciliation/stateQueries.ts';
import { traceWorkerBatch } from '../tracing/spans.ts';
import { rowsOfBatch } from './batchRows.ts';
import { familyOf } from './eventFamilies.ts';
import {
  claimEventsToProcess,
  countUnknownValues,
  type EventToProcess,
  lockEventsToProcess,
  markEventFailed,
  markEventsProcessed,
} from './eventQueries.ts';
import { projectBatch } from './projectBatch.ts';
import { unknownValuesOf } from './unknownValues.ts';

export type ProcessingContext = { pool: Pool; boss: Boss };

// Reconciliation follows every projection change, enqueued in the same transaction so none is lost: one
// reconcile-payments job for the batch's payments. The change is also counted on each payment, so a
// reconciliation lost after all is found by reconcile-stale, and an older run never records over a newer one.
async function queueReconciliations(client: PoolClient, boss: Boss, paymentIds: string[]): Promise<void> {
  await markPaymentsProjected(client, paymentIds);
  await enqueueReconciliations({ boss, client }, paymentIds);
}

// Counted in the same transaction as the projection, so a retried batch never counts twice.
const unknownValuesIn = (events: EventToProcess[]) =>
  events.flatMap((event) =>
    unknownValuesOf(event.event_name, familyOf(event.event_name, event.body.data), event.body.data).map(
      (value) => ({ ...value, receivedAt: event.received_at }),
    ),
  );

// A webhook that brings a state the sweep found missing resolves its event_missed (a late retry got through).
const deliveredObjectIds = (events: EventToProcess[]) =>
  events.flatMap((event) =>
    event.source === 'webhook' && typeof event.body.data.id === 'string' ? [event.body.data.id] : [],
  );

/** Everything that commits with the projections of a batch, in a fixed handful of statements. */
async function finishProcessing(
  client: PoolClient,
  boss: Boss,
  events: EventToProcess[],
  paymentIds: string[],
) {
  await countUnknownValues(client, unknownValuesIn(events));
  await resolveDeliveredMissedEvents(client, deliveredObjectIds(events), new Date());
  await markEventsProcessed(client, events);
  await queueReconciliations(client, boss, paymentIds);
}

const needsProcessing = (event: EventToProcess) =>
  event.status !== 'processed' && event.status !== 'quarantined';

const toProject = (event: EventToProcess) => ({
  rowId: event.id,
  eventName: event.event_name,
  accountId: event.account_id,
  accountType: event.account_type,
  receivedAt: event.received_at,
  source: event.source,
  data: event.body.data,
});

/**
 * Validates every delivery into rows first (nothing is written if one is invalid), then projects them and
 * marks them processed, in the caller's transaction, which holds them locked.
 */
async function projectEvents(client: PoolClient, boss: Boss, events: EventToProcess[]): Promise<void> {
  const rows = rowsOfBatch(events.map(toProject));
  const { paymentIds, payoutIds } = await projectBatch(client, rows);
  await enqueueLineSyncs({ boss, client }, rows.deliveredPayoutIds);
  await enqueuePayoutReconciliations({ boss, client }, payoutIds, paymentIds);
  await finishProcessing(client, boss, events, paymentIds);
}

/**
 * Projects locked deliveries in a fixed handful of statements, which is what makes the worker fast. If any of
 * them fails (validation or a statement), the batch is rolled back to a savepoint and each delivery is
 * projected on its own, so one bad delivery never fails its neighbours; one that fails alone is marked failed
 * with the reason (retried later with back-off). The rows stay locked throughout, so no other worker
 * projects them meanwhile. Returns the error of each delivery that failed.
 */
async function projectLocked(
  client: PoolClient,
  boss: Boss,
  locked: EventToProcess[],
): Promise<Map<number, unknown>> {
  const events = locked.filter(needsProcessing);
  const failures = new Map<number, unknown>();
  if (events.length === 0) return failures;
  await client.query('savepoint batch');
  try {
    await projectEvents(client, boss, events);
    return failures;
  } catch {
    await client.query('rollback to savepoint batch');
  }
  for (const event of events) {
    await client.query('savepoint delivery');
    try {
      await projectEvents(client, boss, [event]);
    } catch (err) {
      await client.query('rollback to savepoint delivery');
      await markEventFailed(client, event, describe(err));
      failures.set(event.id, err);
    }
  }
  return failures;
}

/**
 * Claims the oldest deliveries waiting to be projected (up to `limit`) and projects them in one transaction.
 * Returns how many were claimed and which failed; the worker's loop (processingLoop.ts) calls it.
 */
export async function processNextEvents(
  { pool, boss }: ProcessingContext,
  limit: number,
): Promise<{ claimed: number; failures: Map<number, unknown> }> {
  return withTransaction(pool, async (client) => {
    const claimed = await claimEventsToProcess(client, limit);
    const failures = await traceWorkerBatch(claimed, () => projectLocked(client, boss, claimed));
    return { claimed: claimed.length, failures };
  });
}

/** Projects these stored deliveries (those not processed yet) in one transaction. Returns the failures. */
export async function processStoredEvents(
  { pool, boss }: ProcessingContext,
  ids: number[],
): Promise<Map<number, unknown>> {
  return withTransaction(pool, async (client) =>
    projectLocked(client, boss, await lockEventsToProcess(client, ids)),
  );
}

/** Projects one stored delivery; if it cannot be, it is marked failed and the error is thrown. */
export async function processStoredEvent(context: ProcessingContext, id: number): Promise<void> {
  const failure = (await processStoredEvents(context, [id])).get(id);
  if (failure !== undefined) throw failure;
}

// Schema problems name the field, never its value; anything else is passed through the card redactor.
function describe(err: unknown): string {
  if (err instanceof ZodError) {
    return `invalid data: ${describeIssues(err, 'data')}`;
  }
  return redactCardNumbersInText(err instanceof Error ? err.message : String(err));
}
