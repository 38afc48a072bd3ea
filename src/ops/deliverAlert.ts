import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { alertRequests } from './alertDestinations.ts';
import { alertMessage } from './alertMessage.ts';
import { type AlertDelivery, findAlert, recordAlertDeliveries, recordAlertLogged } from './queries.ts';

// Nothing left to deliver: sent, logged, or taken into (or left out of) a digest.
const SETTLED = new Set(['sent', 'logged', 'digested', 'dropped']);

export type AlertDeliveryContext = { pool: Pool; config: Config; log: Logger; now: () => Date };

/**
 * Delivers one alert to each configured destination (ALERT_WEBHOOK_URL, Slack-compatible;
 * ALERT_SIGNED_WEBHOOK_URL, signed JSON) that does not have it yet, counting every attempt on the alert.
 * Without any destination the alert is logged and listed only. Throws when a destination failed, so the
 * `send-alert` job retries with back-off; a destination that already has it is not sent it twice.
 */
export async function deliverAlert(context: AlertDeliveryContext, alertId: number): Promise<void> {
  const alert = await findAlert(context.pool, alertId);
  if (!alert || SETTLED.has(alert.status)) return;
  context.log.warn(
    { alertId: alert.id, kind: alert.kind, subject: alert.subject_id },
    alertMessage(alert).text,
  );
  const now = context.now();
  const requests = alertRequests(context.config, alert, now);
  if (requests.length === 0) {
    await recordAlertLogged(context.pool, alert.id);
    return;
  }
  const deliveries: Record<string, AlertDelivery> = { ...alert.deliveries };
  let tried = 0;
  for (const request of requests) {
    const before = deliveries[request.destination];
    if (before?.status === 'sent') continue;
    tried += 1;
    const failure = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => (response.ok ? null : `HTTP ${response.status}`),
      (err: unknown) => `network error: ${(err as Error).message}`,
    );
    deliveries[request.destination] = {
      status: failure ? 'failed' : 'sent',
      attempts: (before?.attempts ?? 0) + 1,
      last_error: failure,
      sent_at: failure ? null : now.toISOString(),
    };
  }
  const failed = requests.filter((request) => deliveries[request.destination]?.status !== 'sent');
  await recordAlertDeliveries(context.pool, alert.id, {
    status: failed.length === 0 ? 'sent' : 'failed',
    tried,
    deliveries,
    at: now,
  });
  if (failed.length > 0)
    throw new Error(
      `alert ${alert.id} not delivered to ${failed.map((request) => `${request.destination} (${deliveries[request.destination]?.last_error})`).join(', ')}`,
    );
}
