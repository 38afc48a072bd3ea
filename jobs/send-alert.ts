import { alertMessage } from '../src/ops/alertMessage.ts';
import { findAlert, recordAlertAttempt } from '../src/ops/queries.ts';
import { defineJob } from '../src/queue/job.ts';

/**
 * Delivers one alert to ALERT_WEBHOOK_URL; a failing endpoint is retried with back-off on this queue only,
 * so it never holds up other work. Every attempt is counted on the alert. Without the URL, alerts are
 * logged and listed only.
 */
export default defineJob('send-alert', {
  async handle(payload, context) {
    const alert = await findAlert(context.pool, payload.alert_id);
    if (!alert || alert.status === 'sent' || alert.status === 'logged') return;
    const message = alertMessage(alert);
    context.log.warn({ alertId: alert.id, kind: alert.kind, subject: alert.subject_id }, message.text);
    const url = context.config.ALERT_WEBHOOK_URL;
    if (!url) {
      await recordAlertAttempt(context.pool, alert.id, { status: 'logged', error: null, at: context.now() });
      return;
    }
    const failure = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(10_000),
    }).then(
      (response) => (response.ok ? null : `HTTP ${response.status}`),
      (err: unknown) => `network error: ${(err as Error).message}`,
    );
    await recordAlertAttempt(context.pool, alert.id, {
      status: failure ? 'failed' : 'sent',
      error: failure,
      at: context.now(),
    });
    if (failure) throw new Error(`alert ${alert.id} not delivered: ${failure}`);
  },
});
