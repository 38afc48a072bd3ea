import { countEventsByStatus } from '../../ingest/deliveryReadQueries.ts';
import { listFailedLedgerListings } from '../../payouts/ledgerQueries.ts';
import { summarizePayoutStatus } from '../../payouts/payoutReportQueries.ts';
import { summarizeUnknownValues } from '../../projection/readQueries.ts';
import { countJobsByQueue } from '../../queue/jobCounts.ts';
import { summarizeFeeChecks } from '../../reconciliation/readQueries.ts';
import { summarizeReconciliationLag } from '../../reconciliation/stateQueries.ts';
import { summarizeRetention } from '../../retention/queries.ts';
import { summarizeSubscriptions } from '../../subscriptions/attemptQueries.ts';
import { summarizeSweeps } from '../../sweep/readQueries.ts';
import * as schemas from '../openapi/responses.ts';
import { readReplicaStatus } from '../readReplicaStatus.ts';
import { single } from './envelope.ts';
import { ok, route } from './route.ts';

export const statusRoute = route({
  method: 'get',
  path: '/api/status',
  tag: 'Operations',
  auth: 'read',
  summary: 'Backlogs, lags and the last runs of scheduled work',
  answers: ok(
    'The current status.',
    schemas.single('StatusEnvelope', 'status', schemas.statusSchema, 'Status.'),
  ),
  handler: (deps) => async (_req, res) => {
    const [
      events,
      jobs,
      fees,
      unknownValues,
      sweeps,
      retention,
      reconciliation,
      payouts,
      ledgerFailures,
      subscriptions,
    ] = await Promise.all([
      countEventsByStatus(deps.pool),
      countJobsByQueue(deps.boss),
      summarizeFeeChecks(deps.pool),
      summarizeUnknownValues(deps.pool),
      summarizeSweeps(deps.pool),
      summarizeRetention(deps.pool),
      summarizeReconciliationLag(deps.pool),
      summarizePayoutStatus(deps.pool),
      listFailedLedgerListings(deps.pool),
      summarizeSubscriptions(deps.pool, deps.now()),
    ]);
    res.json(
      single('status', null, {
        unprocessed_events: events.received,
        queued_jobs: Object.values(jobs).reduce((sum, counts) => sum + counts.queued, 0),
        quarantined_events: events.quarantined,
        failed_events: events.failed,
        conflicting_events: events.conflicts,
        last_fee_sync_at: fees.lastFeeSyncAt,
        unverified_fee_payments: fees.unverifiedPayments,
        overridden_fees: fees.overriddenFees,
        // Values the seed does not name, per field, with how many deliveries carried each.
        unknown_values: unknownValues,
        last_sweep_at: sweeps.lastSweepAt,
        missed_events_open: sweeps.missedEventsOpen,
        // Retention: the oldest delivery whose raw body is still kept, and how many bodies were purged.
        oldest_kept_body_at: retention.oldestKeptBodyAt,
        purged_bodies: retention.purgedBodies,
        // Payments whose newest state no reconciliation has seen yet, and the oldest one's wait in seconds.
        unreconciled_payments: reconciliation.unreconciledPayments,
        oldest_unreconciled_s: reconciliation.oldestUnreconciledSeconds,
        // Payouts: when the sync last finished; payments no payout has paid yet; paid payouts the bank lacks.
        last_payout_sync_at: payouts.lastPayoutSyncAt,
        payments_awaiting_payout: payouts.paymentsAwaitingPayout,
        payouts_unmatched_in_bank: payouts.payoutsUnmatchedInBank,
        // Accounts whose latest ledger listing failed: the tie-out holds their previous listing as stale.
        provider_ledger_failures: ledgerFailures.map((row) => ({
          account_id: row.account_id,
          failed_at: row.failed_at?.toISOString(),
          error: row.error ?? '',
          listed_at: row.listed_at?.toISOString() ?? null,
        })),
        read_replica: readReplicaStatus(deps.reads),
        failed_jobs: Object.fromEntries(
          Object.entries(jobs).map(([queue, counts]) => [queue, counts.failed]),
        ),
        // Forwarding: each subscription's lag and attempts by outcome (docs/changes.md).
        subscriptions: subscriptions.map(
          ({ subscription_id, enabled, lag_seconds, pending, failed, attempts }) => ({
            id: `sub_${subscription_id}`,
            enabled,
            lag_seconds,
            pending,
            failed,
            attempts,
          }),
        ),
      }),
    );
  },
});
