import { z } from 'zod';
import { withTransaction } from '../src/db/pool.ts';
import { recordFindings } from '../src/findings/recordFindings.ts';
import { CAPTURE_WINDOW_MS, checkCaptureExpiry } from '../src/ops/captureExpiry.ts';
import { insertAlerts, listUncapturedAuthorizations } from '../src/ops/queries.ts';
import { inTransaction } from '../src/queue/boss.ts';
import { defineJob } from '../src/queue/job.ts';
import { SEND_ALERT_QUEUE } from './send-alert.ts';

// Authorizations that expired this long ago are no longer scanned (their findings stay as history).
const LOOK_BACK_MS = CAPTURE_WINDOW_MS + 30 * 24 * 3600 * 1000;

/**
 * Opens `capture_expiring` / `capture_expired` for uncaptured manual authorizations near or past their
 * 7-day expiry (resolving those captured, canceled or voided since) and raises one alert per threshold
 * crossing. Alerts are deduplicated in the database, so overlapping scans alert once.
 */
export default defineJob({
  name: 'capture-expiry-scan',
  scheduled: true,
  payloadSchema: z.object({}),
  queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 600 },
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
      const ids = await insertAlerts(
        client,
        alerts.map((alert) => ({ ...alert, subjectId: alert.paymentId })),
        now,
      );
      if (ids.length > 0) {
        await context.boss.insert(
          SEND_ALERT_QUEUE,
          ids.map((id) => ({ data: { alert_id: id } })),
          { db: inTransaction(client) },
        );
      }
      return ids.length;
    });
    context.log.info(
      { authorizations: authorizations.length, findings: findings.length, alerts: created },
      'capture expiry scanned',
    );
  },
});
