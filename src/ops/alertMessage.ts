import type { AlertRow } from './queries.ts';

const money = (cents: unknown, currency: unknown) =>
  typeof cents === 'number'
    ? `${(cents / 100).toFixed(2)} ${String(currency ?? '').toUpperCase()}`
    : 'unknown amount';

type Field = { title: string; value: string; short: boolean };
const field = (title: string, value: unknown): Field => ({ title, value: String(value ?? '—'), short: true });

type Rendered = { text: string; color: 'danger' | 'warning'; fields: Field[] };

function captureMessage(alert: AlertRow): Rendered {
  const p = alert.payload;
  const hoursLeft = typeof p.hours_left === 'number' ? p.hours_left : 0;
  const expired = alert.kind === 'capture_expired';
  return {
    text: expired
      ? `Authorization for payment ${p.payment_id} (${money(p.amount, p.currency)}) expired uncaptured at ${p.expires_at}.`
      : `Capture payment ${p.payment_id} (${money(p.amount, p.currency)}) before ${p.expires_at}: ${hoursLeft} h left.`,
    color: expired ? 'danger' : 'warning',
    fields: [
      field('Payment', p.payment_id),
      field('Account', p.account_id),
      field('Amount', money(p.amount, p.currency)),
      field('Hours left', hoursLeft),
      field('Authorized at', p.authorized_at),
      field('Expires at', p.expires_at),
    ],
  };
}

function disputeDueMessage(alert: AlertRow): Rendered {
  const p = alert.payload;
  return {
    text: `Respond to dispute ${p.dispute_id} on payment ${p.payment_id} (${money(p.amount, p.currency)}) by ${p.due_date}: ${p.days_left} day(s) left.`,
    color: p.days_left === 0 ? 'danger' : 'warning',
    fields: [
      field('Dispute', p.dispute_id),
      field('Payment', p.payment_id),
      field('Account', p.account_id),
      field('Amount', money(p.amount, p.currency)),
      field('Reason', p.reason),
      field('Due date', p.due_date),
    ],
  };
}

function digestMessage(alert: AlertRow): Rendered {
  const p = alert.payload as {
    alerts: number;
    window_end: string;
    by_code: { code: string; alerts: number }[];
    at_stake: { currency: string; cents: number }[];
    top: { code: string; subject_id: string; at_stake: number | null; currency: string | null }[];
    console_path: string;
  };
  const stake = p.at_stake.map((sum) => money(sum.cents, sum.currency)).join(', ') || 'nothing';
  return {
    text: `${p.alerts} alert(s) up to ${p.window_end}: ${p.by_code.map((c) => `${c.alerts} ${c.code}`).join(', ')}; at stake ${stake}. Console: ${p.console_path}`,
    color: 'warning',
    fields: [
      ...p.by_code.map((c) => field(c.code, c.alerts)),
      ...p.top.map((item) =>
        field(
          `${item.code} ${item.subject_id}`,
          item.at_stake === null ? '—' : money(item.at_stake, item.currency),
        ),
      ),
    ],
  };
}

function findingMessage(alert: AlertRow): Rendered {
  const p = alert.payload;
  // A finding that measures no money (at_stake null) names none rather than a zero.
  const stake = typeof p.at_stake === 'number' ? `: ${money(p.at_stake, p.currency)} at stake` : '';
  return {
    text: `Finding ${p.code} (${p.severity}) opened on ${p.subject_type} ${p.subject_id}${stake}. Console: ${p.console_path}`,
    color: p.severity === 'error' ? 'danger' : 'warning',
    fields: [
      field('Code', p.code),
      field('Severity', p.severity),
      field('Subject', `${p.subject_type} ${p.subject_id}`),
      field('Account', p.account_id),
      field('At stake', typeof p.at_stake === 'number' ? money(p.at_stake, p.currency) : '—'),
      field('Expected / actual', `${JSON.stringify(p.expected)} / ${JSON.stringify(p.actual)}`),
    ],
  };
}

function subscriptionDisabledMessage(alert: AlertRow): Rendered {
  const p = alert.payload;
  return {
    text: `Forwarding to ${p.url} (subscription ${p.subscription_id}) is disabled: every attempt failed since ${p.failing_since}. Its changes wait; enable it to resume. Console: ${p.console_path}`,
    color: 'danger',
    fields: [
      field('Subscription', p.subscription_id),
      field('URL', p.url),
      field('Failing since', p.failing_since),
      field('Disabled at', p.disabled_at),
    ],
  };
}

function render(alert: AlertRow): Rendered {
  if (alert.kind === 'capture_expiring' || alert.kind === 'capture_expired') return captureMessage(alert);
  if (alert.kind === 'dispute_due') return disputeDueMessage(alert);
  if (alert.kind === 'digest') return digestMessage(alert);
  if (alert.kind === 'subscription_disabled') return subscriptionDisabledMessage(alert);
  return findingMessage(alert);
}

/** The alert's facts as plain JSON: what the signed destination receives, and `tally` in the Slack one. */
export function alertFacts(alert: AlertRow) {
  return {
    alert_id: alert.id,
    kind: alert.kind,
    created_at: alert.created_at.toISOString(),
    ...alert.payload,
  };
}

/** The alert in one sentence, as it is logged. */
export function alertText(alert: AlertRow): string {
  return render(alert).text;
}

/**
 * Slack reads `<…>` in text as a link or a mention (`<!channel>`, `<https://…|label>`) and `&` as the start of
 * an entity: ids and values from deliveries are shown as written, never as markup (Slack's own escaping).
 */
const slackEscape = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * Slack-compatible JSON: `text` for any incoming-webhook consumer, `attachments[].fields` for Slack's
 * layout (both escaped), and the same facts as plain, unescaped fields under `tally` for tools.
 */
export function alertMessage(alert: AlertRow) {
  const { text, color, fields } = render(alert);
  return {
    text: slackEscape(text),
    attachments: [
      {
        color,
        fields: fields.map((item) => ({
          ...item,
          title: slackEscape(item.title),
          value: slackEscape(item.value),
        })),
      },
    ],
    tally: alertFacts(alert),
  };
}
