/**
 * Turns one line of a provider-examples file into the delivery `check:provider-examples` posts: the
 * provider's own envelope byte for byte, or a bare resource wrapped in an envelope like a real delivery's.
 */

export type Example = { source?: unknown; kind?: unknown; event_name?: unknown; body?: unknown };

export type Planned = {
  line: number;
  source: string;
  label: string;
  skipped?: string;
  body?: string;
  eventId?: string;
  /** Envelope fields a provider `webhook_event` body lacks: its quarantine is then expected. */
  missing: string[];
};

const ENVELOPE_FIELDS = ['id', 'event_name', 'account_id', 'account_type', 'version', 'data'];
const PAYMENT_EVENT_BY_STATUS = new Map([
  ['failed', 'payment.failed'],
  ['authorized', 'payment.authorized'],
  ['canceled', 'payment.canceled'],
  ['pending', 'payment.pending'],
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A bare resource gets the event name a delivery of it would plausibly carry, chosen by its id prefix. */
function eventNameFor(data: Record<string, unknown>, kind: string): string {
  const id = typeof data.id === 'string' ? data.id : '';
  if (id.startsWith('py_')) return PAYMENT_EVENT_BY_STATUS.get(String(data.status)) ?? 'payment.succeeded';
  if (id.startsWith('re_')) return 'payment.refunded';
  if (id.startsWith('cho_')) return data.status === 'completed' ? 'checkout.completed' : 'checkout.created';
  if (id.startsWith('chc_')) return 'checkout.completion.succeeded';
  if (id.startsWith('dp_')) return 'payment.dispute.created';
  if (id.startsWith('fwd_')) return 'forwarding_request.completed';
  if (id.startsWith('chr_')) return 'checkout.refund.succeeded';
  return `${kind}.example`;
}

export function planDelivery(example: Example, line: number, idSuffix: string): Planned {
  const kind = String(example.kind);
  const base = { line, source: String(example.source ?? 'no source'), label: kind, missing: [] };
  if (kind === 'webhook_event') {
    // The provider's own envelope: sent byte for byte, only re-signed.
    const raw = typeof example.body === 'string' ? example.body : JSON.stringify(example.body);
    const value = parseJson(raw);
    if (value === undefined) return { ...base, skipped: 'not JSON' };
    const envelope = isObject(value) ? value : {};
    return {
      ...base,
      label: typeof envelope.event_name === 'string' ? envelope.event_name : kind,
      body: raw,
      eventId: typeof envelope.id === 'string' ? envelope.id : undefined,
      missing: ENVELOPE_FIELDS.filter((field) => envelope[field] === undefined || envelope[field] === null),
    };
  }
  let value = typeof example.body === 'string' ? parseJson(example.body) : example.body;
  if (value === undefined) return { ...base, skipped: 'not JSON' };
  // API responses wrap the resource in {id, type, data, page_info}; a list response holds many.
  if (isObject(value) && typeof value.type === 'string' && 'data' in value) {
    if (!isObject(value.data)) return { ...base, skipped: 'a list response, not one object' };
    value = value.data;
  }
  if (!isObject(value)) return { ...base, skipped: 'not one object' };
  const eventName =
    typeof example.event_name === 'string' && example.event_name !== ''
      ? example.event_name
      : eventNameFor(value, kind);
  const envelope = {
    id: `evt_check_${line}${idSuffix}`,
    event_name: eventName,
    account_id:
      typeof value.account_id === 'string' && value.account_id !== '' ? value.account_id : 'acc_check',
    account_type: 'test',
    platform_account_id: null,
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    data: value,
  };
  return { ...base, label: eventName, body: JSON.stringify(envelope), eventId: envelope.id };
}
