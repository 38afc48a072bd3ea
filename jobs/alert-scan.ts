import { sendDueDigests } from '../src/ops/digests.ts';
import { raiseDisputeDeadlineAlerts } from '../src/ops/disputeDeadlines.ts';
import { raiseOpenedFindingAlerts } from '../src/ops/findingAlerts.ts';
import { defineJob } from '../src/queue/job.ts';

/**
 * Raises an alert for each finding opened with a code of ALERT_FINDING_CODES (and `dispute_lost`), and for
 * each open dispute reaching a DISPUTE_ALERT_DAYS threshold before its due date, then sends the digests
 * that are due (ALERT_DIGEST_MINUTES). Every alert is keyed, so overlapping scans raise it once.
 */
export default defineJob('alert-scan', {
  async handle(_payload, context) {
    const now = context.now();
    const findings = await raiseOpenedFindingAlerts(context, now);
    const disputes = await raiseDisputeDeadlineAlerts(context, now);
    const digests = await sendDueDigests(context, now);
    if (findings + disputes + digests > 0) context.log.info({ findings, disputes, digests }, 'alerts raised');
  },
});
