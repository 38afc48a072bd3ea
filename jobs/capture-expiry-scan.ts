import { withTransaction } from '../src/db/pool.ts';
import { recordFindings } from '../src/findings/recordFindings.ts';
import { CAPTURE_WINDOW_MS, checkCaptureExpiry } from '../src/ops/captureExpiry.ts';
import { listUncapturedAuthorizations } from '../src/ops/queries.ts';
import { raiseAlerts } from '../src/ops/raiseAlerts.ts';
import { defineJob } from '../src/queue/job.ts';

// Authorizations that expired this long ago are no longer scanned (their findings stay as history).
const LOOK_BACK_MS = CAPTURE_WINDOW_MS + 30 * 24 * 3600 * 1000;

/**
 * Opens `capture_expiring` / `capture_expired` for uncaptured manual authorizations near or past their
 * 7-day expiry (resolving those captured, canceled or voided since) and, for the codes of
 * ALERT_FINDING_CODES, raises one alert per threshold crossing. Alerts are deduplicated in the database, so
 * overlapping scans alert once.
 */
export default defineJob('capture-expiry-scan', {
  async handle(_payload, context) {
    const now = context.now();
    const authorizations = await listUncapturedAuthorizations(
      context.pool,
      new Date(now.getTime() - LOOK_BACK_MS),
    );
    const { findings, alerts } = checkCaptureExpiry(authorizations, context.config.CAPTURE_ALERT_HOURS, now);
    const created = await withTransaction(context.pool, async (client) => {
      await recordFindings(
        client,
        { scope: 'capture-expiry', accountId: null, currency: null, now },
        findings,
      );
      const alerted = alerts.filter((alert) => context.config.ALERT_FINDING_CODES.includes(alert.kind));
      const ids = await raiseAlerts(
        { boss: context.boss, client },
        context.config,
        alerted.map((alert) => ({ ...alert, subjectId: alert.paymentId })),
        now,
      );
      return ids.length;
    });
    context.log.info(
      { authorizations: authorizations.length, findings: findings.length, alerts: created },
      'capture expiry scanned',
    );
  },
});
