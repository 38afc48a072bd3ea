import { ZodError } from 'zod';
import { type Pool, type PoolClient, withTransaction } from '../db/pool.ts';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import { resolveDeliveredMissedEvents } from '../findings/queries.ts';
import { isNestedTooDeep, MAX_DEPTH } from '../ingest/envelope.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueueReconciliations } from '../queue/enqueueReconciliations.ts';
import { markPaymentsProjected } from '../reconciliation/stateQueries.ts';
import { traceWorkerBatch } from '../tracing/spans.ts';
import { describeIssues } from '../zodIssues.ts';
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
import { foldMovementDays } from './foldMovementDays.ts';
import { enqueueLineSyncs, enqueuePayoutReconciliations } from './payouts/payoutFollowUps.ts';
import { projectBatch } from './projectBatch.ts';
import { isConflict, OverBudgetError, projectUnderSavepoint } from './savepointAttempts.ts';
import { unknownValuesOf } from './unknownValues.ts';

export type ProcessingContext = {
  pool: Pool;
  boss: Boss;
  /**
   * A rebuild (`tally reprocess --all`) queues no judgement with each delivery: it would judge states long
   * past against today's clock (a payout replayed in transit, days before its `paid`, opens `payout_overdue`).
   * It judges every rebuilt object once at the end instead (rebuild.ts).
   */
  judgeAtEnd?: boolean;
};

// What a projection sets going after it: the jobs it queues.
type FollowUps = Pick<ProcessingContext, 'boss' | 'judgeAtEnd'>;

// Judgement follows every projection change, queued in the same transaction so none is lost: one
// reconcile-payments job for the batch's payments, and the payouts' line syncs and reconciliations. The change
// is also counted on each payment (finishProcessing, rebuild or not), so a reconciliation lost after all is
// found by reconcile-stale, and an older run never records over a newer one.
async function queueJudgements(
  client: PoolClient,
  boss: Boss,
  rows: { deliveredPayoutIds: string[] },
  { paymentIds, payoutIds }: { paymentIds: string[]; payoutIds: string[] },
): Promise<void> {
  await enqueueLineSyncs({ boss, client }, rows.deliveredPayoutIds);
  await enqueuePayoutReconciliations({ boss, client }, payoutIds, paymentIds);
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
async function finishProcessing(client: PoolClient, events: EventToProcess[], paymentIds: string[]) {
  await countUnknownValues(client, unknownValuesIn(events));
  await resolveDeliveredMissedEvents(client, deliveredObjectIds(events), new Date());
  await markEventsProcessed(client, events);
  await markPaymentsProjected(client, paymentIds);
}

const needsProcessing = (event: EventToProcess) =>
  event.status !== 'processed' && event.status !== 'quarantined';

// Every webhook body is at most 64 levels deep (checked at ingest); an API snapshot the sweep stored is
// checked here, so nothing the projection runs on a body meets an unbounded depth.
function toProject(event: EventToProcess) {
  if (isNestedTooDeep(event.body)) throw new Error(`body nested deeper than ${MAX_DEPTH} levels`);
  return {
    rowId: event.id,
    eventName: event.event_name,
    accountId: event.account_id,
    accountType: event.account_type,
    receivedAt: event.received_at,
    source: event.source,
    data: event.body.data,
  };
}

/**
 * Validates every delivery into rows first (nothing is written if one is invalid), then projects them and
 * marks them processed, in the caller's transaction, which holds them locked.
 */
async function projectEvents(
  client: PoolClient,
  followUps: FollowUps,
  events: EventToProcess[],
): Promise<void> {
  const rows = rowsOfBatch(events.map(toProject));
  const projected = await projectBatch(client, rows);
  await finishProcessing(client, events, projected.paymentIds);
  if (!followUps.judgeAtEnd) await queueJudgements(client, followUps.boss, rows, projected);
}

/**
 * How long one batch may take to project, in milliseconds. A batch that takes longer is redone one delivery
 * at a time, and a delivery that alone takes longer is marked failed for good (no automatic retry: it would
 * only take as long again), so one slow delivery holds up the ones behind it once, not at every claim.
 * JavaScript cannot stop a step that is running: what keeps a step short is that every step the worker runs
 * on a body is linear in its size and capped in depth; the budget catches what is merely slow.
 */
export const BATCH_BUDGET_MS = 10_000;

/**
 * Projects locked deliveries in a fixed handful of statements, which is what makes the worker fast. If any of
 * them fails (validation or a statement), or the batch goes over its budget, it is rolled back to a savepoint
 * and each delivery is projected on its own, so one bad delivery never fails its neighbours; one that fails
 * alone is marked failed with the reason (retried later with back-off, unless it went over the budget). The
 * rows stay locked throughout, so no other worker projects them meanwhile. A delivery that still loses to
 * another transaction after projectUnderSavepoint's attempts is no fault of its own: with `giveWay`, the error
 * is thrown, so the whole transaction rolls back and releases what the deliveries before it locked (a lock the
 * other transaction may be waiting for), and the worker's loop claims the deliveries again. Returns the error
 * of each delivery that failed.
 */
async function projectLocked(
  client: PoolClient,
  followUps: FollowUps,
  locked: EventToProcess[],
  budgetMs: number,
  giveWay: boolean,
): Promise<Map<number, unknown>> {
  const events = locked.filter(needsProcessing);
  const failures = new Map<number, unknown>();
  if (events.length === 0) return failures;
  const batchFailure = await projectUnderSavepoint(client, budgetMs, () =>
    projectEvents(client, followUps, events),
  );
  if (batchFailure === null) return failures;
  for (const event of events) {
    // A delivery alone in its batch has just been tried on its own.
    const failure =
      events.length === 1
        ? batchFailure
        : await projectUnderSavepoint(client, budgetMs, () => projectEvents(client, followUps, [event]));
    if (failure === null) continue;
    if (giveWay && isConflict(failure)) throw failure;
    await markEventFailed(client, event, describe(failure), { retry: !(failure instanceof OverBudgetError) });
    failures.set(event.id, failure);
  }
  return failures;
}

/**
 * Claims the oldest deliveries waiting to be projected (up to `limit`) and projects them in one transaction,
 * then folds the kept days (foldMovementDays). Returns how many were claimed and which failed; throws, with
 * nothing marked, when a delivery keeps losing to another transaction. The worker's loop (processingLoop.ts)
 * calls it, and tries again after an error.
 */
export async function processNextEvents(
  { pool, boss }: ProcessingContext,
  limit: number,
  budgetMs = BATCH_BUDGET_MS,
): Promise<{ claimed: number; failures: Map<number, unknown> }> {
  const projected = await withTransaction(pool, async (client) => {
    const claimed = await claimEventsToProcess(client, limit);
    const failures = await traceWorkerBatch(claimed, () =>
      projectLocked(client, { boss }, claimed, budgetMs, true),
    );
    return { claimed: claimed.length, failures };
  });
  if (projected.claimed > 0) await foldMovementDays(pool);
  return projected;
}

/**
 * Projects these stored deliveries (those not processed yet) in one transaction, without a time budget: a
 * person asked (`tally reprocess`), and no loop waits behind them; then folds the kept days. Returns the
 * failures.
 */
export async function processStoredEvents(
  { pool, boss, judgeAtEnd }: ProcessingContext,
  ids: number[],
): Promise<Map<number, unknown>> {
  const failures = await withTransaction(pool, async (client) =>
    projectLocked(
      client,
      { boss, judgeAtEnd },
      await lockEventsToProcess(client, ids),
      Number.POSITIVE_INFINITY,
      false,
    ),
  );
  await foldMovementDays(pool);
  return failures;
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
