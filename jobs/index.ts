import type { JobDefinition } from '../src/queue/job.ts';
import type { QueueName } from '../src/queue/queues.ts';
import alertScan from './alert-scan.ts';
import captureExpiryScan from './capture-expiry-scan.ts';
import changePurge from './change-purge.ts';
import closedPeriodCheck from './closed-period-check.ts';
import dailyReport from './daily-report.ts';
import feeConfigurationReport from './fee-configuration-report.ts';
import feeConfigurationSync from './fee-configuration-sync.ts';
import missedEventSweep from './missed-event-sweep.ts';
import payoutScan from './payout-scan.ts';
import payoutSync from './payout-sync.ts';
import periodReport from './period-report.ts';
import reconcilePayments from './reconcile-payments.ts';
import reconcilePayouts from './reconcile-payouts.ts';
import reconcileStale from './reconcile-stale.ts';
import retentionPurge from './retention-purge.ts';
import sendAlert from './send-alert.ts';

// Keyed by queue, so a queue of the registry left without its handler is a type error.
const handlers = {
  'reconcile-payments': reconcilePayments,
  'reconcile-stale': reconcileStale,
  'capture-expiry-scan': captureExpiryScan,
  'send-alert': sendAlert,
  'fee-configuration-sync': feeConfigurationSync,
  'fee-configuration-report': feeConfigurationReport,
  'missed-event-sweep': missedEventSweep,
  'payout-sync': payoutSync,
  'daily-report': dailyReport,
  'period-report': periodReport,
  'closed-period-check': closedPeriodCheck,
  'retention-purge': retentionPurge,
  'reconcile-payouts': reconcilePayouts,
  'payout-scan': payoutScan,
  'alert-scan': alertScan,
  'change-purge': changePurge,
} satisfies { [Name in QueueName]: { name: Name } };

/** Every pg-boss queue Tally runs, in the registry's order. */
export const jobs = Object.values(handlers) as JobDefinition[];
