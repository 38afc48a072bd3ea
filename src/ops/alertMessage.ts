import type { AlertRow } from './queries.ts';

const money = (cents: unknown, currency: unknown) =>
  typeof cents === 'number'
    ? `${(cents / 100).toFixed(2)} ${String(currency ?? '').toUpperCase()}`
    : 'unknown amount';

/**
 * Slack-compatible JSON: `text` for any incoming-webhook consumer, `attachments[].fields` for Slack's
 * layout, and the same facts as plain fields under `tally` for tools.
 */
export function alertMessage(alert: AlertRow) {
  const p = alert.payload;
  const hoursLeft = typeof p.hours_left === 'number' ? p.hours_left : 0;
  const text =
    alert.kind === 'capture_expired'
      ? `Authorization for payment ${p.payment_id} (${money(p.amount, p.currency)}) expired uncaptured at ${p.expires_at}.`
      : `Capture payment ${p.payment_id} (${money(p.amount, p.currency)}) before ${p.expires_at}: ${hoursLeft} h left.`;
  return {
    text,
    attachments: [
      {
        color: alert.kind === 'capture_expired' ? 'danger' : 'warning',
        fields: [
          { title: 'Payment', value: String(p.payment_id), short: true },
          { title: 'Account', value: String(p.account_id), short: true },
          { title: 'Amount', value: money(p.amount, p.currency), short: true },
          { title: 'Hours left', value: String(hoursLeft), short: true },
          { title: 'Authorized at', value: String(p.authorized_at), short: true },
          { title: 'Expires at', value: String(p.expires_at), short: true },
        ],
      },
    ],
    tally: { alert_id: alert.id, kind: alert.kind, ...p },
  };
}
