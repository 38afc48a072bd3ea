import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { type AlertRequest, alertRequests } from './alertDestinations.ts';
import { alertText } from './alertMessage.ts';
import { SETTLED_ALERT_STATUSES } from './alertStatuses.ts';
import { type AlertDelivery, findAlert, recordAlertDeliveries, recordAlertLogged } from './queries.ts';

export type AlertDeliveryContext = { pool: Pool; config: Config; log: Logger; now: () => Date };

/**
 * Delivers one alert to each configured destination (ALERT_WEBHOOK_URL, Slack-compatible;
 * ALERT_SIGNED_WEBHOOK_URL, signed JSON) that does not have it yet, counting every attempt on the alert.
 * Without any destination the alert is logged and listed only. Throws when a destination failed, so the
 * `send-alert` job retries with back-off; a destination that already has it is not sent it twice.
 */
export async function deliverAlert(context: AlertDeliveryContext, alertId: number): Promise<void> {
  const alert = await findAlert(context.pool, alertId);
  if (!alert || SETTLED_ALERT_STATUSES.has(alert.status)) return;
  context.log.warn({ alertId: alert.id, kind: alert.kind, subject: alert.subject_id }, alertText(alert));
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
    const failure = await postAlert(request);
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

/**
 * POSTs one alert; null when the destination took it, else why not. A redirect is a failure, never followed:
 * the configured address is the only one an alert goes to. The answer's body is never read (a destination
 * could send any amount) and always cancelled, so its connection is freed now rather than at garbage collection.
 */
async function postAlert(request: AlertRequest): Promise<string | null> {
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.ok) return null;
    return `HTTP ${response.status}`;
  } catch (err) {
    // undici says only "fetch failed"; the cause names what failed (refused, redirect, timeout).
    const cause = (err as Error).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    return `network error: ${(err as Error).message}${detail}`;
  }
}
