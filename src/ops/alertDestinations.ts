import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import { alertFacts, alertMessage } from './alertMessage.ts';
import type { AlertRow } from './queries.ts';

const SIGNED_TIMESTAMP_HEADER = 'tally-timestamp';
const SIGNED_SIGNATURE_HEADER = 'tally-signature';
const SIGNED_ALERT_ID_HEADER = 'tally-alert-id';

/**
 * Lowercase hex HMAC-SHA256 under the secret of `<timestamp>.<body>` (the provider's own scheme, so a
 * receiver verifies it the same way): the timestamp is Unix seconds, the body the exact bytes sent.
 */
export function signAlert(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export type AlertRequest = {
  destination: 'slack' | 'signed';
  url: string;
  headers: Record<string, string>;
  body: string;
};

/** What each configured destination receives for an alert; none configured: the alert is only logged. */
export function alertRequests(
  config: Pick<Config, 'ALERT_WEBHOOK_URL' | 'ALERT_SIGNED_WEBHOOK_URL' | 'ALERT_WEBHOOK_SECRET'>,
  alert: AlertRow,
  now: Date,
): AlertRequest[] {
  const requests: AlertRequest[] = [];
  const json = { 'content-type': 'application/json' };
  if (config.ALERT_WEBHOOK_URL)
    requests.push({
      destination: 'slack',
      url: config.ALERT_WEBHOOK_URL,
      headers: json,
      body: JSON.stringify(alertMessage(alert)),
    });
  if (config.ALERT_SIGNED_WEBHOOK_URL && config.ALERT_WEBHOOK_SECRET) {
    const body = JSON.stringify(alertFacts(alert));
    const timestamp = String(Math.floor(now.getTime() / 1000));
    requests.push({
      destination: 'signed',
      url: config.ALERT_SIGNED_WEBHOOK_URL,
      headers: {
        ...json,
        [SIGNED_ALERT_ID_HEADER]: String(alert.id),
        [SIGNED_TIMESTAMP_HEADER]: timestamp,
        [SIGNED_SIGNATURE_HEADER]: signAlert(config.ALERT_WEBHOOK_SECRET, timestamp, body),
      },
      body,
    });
  }
  return requests;
}
