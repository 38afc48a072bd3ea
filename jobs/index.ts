import type { JobDefinition } from '../src/queue/job.ts';
import captureExpiryScan from './capture-expiry-scan.ts';
import dailyReport from './daily-report.ts';
import feeConfigurationReport from './fee-configuration-report.ts';
import feeConfigurationSync from './fee-configuration-sync.ts';
import processEvent from './process-event.ts';
import reconcilePayment from './reconcile-payment.ts';
import sendAlert from './send-alert.ts';

/** Every pg-boss queue Tally runs. */
export const jobs: readonly JobDefinition[] = [
  processEvent,
  reconcilePayment,
  feeConfigurationSync,
  captureExpiryScan,
  sendAlert,
  dailyReport,
  feeConfigurationReport,
] as JobDefinition[];
