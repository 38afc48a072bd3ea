import { alertRequests } from '../src/ops/alertDestinations.ts';
import { alertMessage } from '../src/ops/alertMessage.ts';
import {
  type AlertDelivery,
  findAlert,
  recordAlertDeliveries,
  recordAlertLogged,
} from '../src/ops/queries.ts';
import { defineJob } from '../src/queue/job.ts';

// Nothing left to deliver: sent, logged, or taken into (or left out of) a digest.
const SETTLED = new Set(['sent', 'logged', 'digested', 'dropped']);

/**
 * Delivers one alert to each configured destination (ALERT_WEBHOOK_URL, Slack-compatible;
 * ALERT_SIGNED_WEBHOOK_URL, signed JSON) that does not have it yet; a failing endpoint is retried with
 * back-off on this queue only, so it holds up no other work and the other destination is not sent twice.
 * Every attempt is counted on the alert. Without any destination, alerts are logged and listed only.
 */
export default defineJob('send-alert', {
  async handle(payload, context) {
    const alert = await findAlert(context.pool, payload.alert_id);
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
  },
});
