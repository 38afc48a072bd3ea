import { randomBytes } from 'node:crypto';
import { sign } from '../src/ingest/signature.ts';

/**
 * Posts one event to a webhook target as the provider does: an envelope around `data`, signed with the
 * target's secret and the current time. Resolves to the HTTP status the target answered.
 */
export async function sendWebhook(
  target: { url: string; secret: string },
  event: { eventName: string; accountId: string; data: unknown },
): Promise<number> {
  const envelope = JSON.stringify({
    id: `evt_${randomBytes(6).toString('hex')}`,
    event_name: event.eventName,
    account_id: event.accountId,
    account_type: 'test',
    platform_account_id: 'acc_platform',
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    data: event.data,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'justifi-timestamp': timestamp,
      'justifi-signature': sign(target.secret, timestamp, envelope),
    },
    body: envelope,
  });
  return response.status;
}
