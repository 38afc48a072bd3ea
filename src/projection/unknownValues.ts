import { unknownDeclineValuesOf } from './declines/declineRows.ts';
import type { EventFamily } from './eventFamilies.ts';
import { isKnownTxnType } from './payouts/payoutRows.ts';

/** An enumerated field and the values the seed and the provider's docs name for it. */
type KnownValues = {
  field: string;
  read: (data: Record<string, unknown>) => unknown;
  known: { has(value: string): boolean };
};

const at =
  (...path: string[]) =>
  (data: Record<string, unknown>): unknown =>
    path.reduce<unknown>(
      (value, key) =>
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      data,
    );

const PAYMENT: KnownValues[] = [
  {
    field: 'payment.payment_mode',
    read: at('payment_mode'),
    known: new Set(['ecom', 'ach', 'card_present']),
  },
  {
    field: 'payment.status',
    read: at('status'),
    known: new Set([
      'pending',
      'authorized',
      'canceled',
      'succeeded',
      'failed',
      'partially_refunded',
      'fully_refunded',
      'refunded',
      'disputed',
    ]),
  },
  {
    field: 'payment.capture_strategy',
    read: at('capture_strategy'),
    known: new Set(['automatic', 'manual']),
  },
  {
    field: 'payment.card_brand',
    read: at('payment_method', 'card', 'brand'),
    known: new Set(['visa', 'mastercard', 'american_express', 'discover']),
  },
];

const KNOWN_BY_FAMILY: Partial<Record<EventFamily, KnownValues[]>> = {
  payment: PAYMENT,
  refund: [
    {
      field: 'refund.status',
      read: at('status'),
      known: new Set(['pending', 'succeeded', 'success', 'failed', 'canceled']),
    },
  ],
  checkout: [
    {
      field: 'checkout.status',
      read: at('status'),
      known: new Set(['created', 'completed', 'attempted', 'expired']),
    },
  ],
  checkout_completion: [
    {
      field: 'checkout_completion.payment_mode',
      read: at('payment_mode'),
      known: new Set(['ecom', 'ach', 'card_present']),
    },
  ],
  dispute: [
    {
      field: 'dispute.status',
      read: at('status'),
      known: new Set(['needs_response', 'under_review', 'won', 'lost', 'forfeited']),
    },
  ],
  forwarding: [
    {
      field: 'forwarding_request.status',
      read: at('status'),
      known: new Set(['pending', 'processing', 'completed', 'failed']),
    },
  ],
  payout: [
    {
      field: 'payout.status',
      read: at('status'),
      known: new Set(['scheduled', 'in_transit', 'paid', 'failed', 'canceled', 'forwarded']),
    },
  ],
  payout_line: [
    { field: 'balance_transaction.txn_type', read: at('txn_type'), known: { has: isKnownTxnType } },
  ],
};

// Values are stored for people to read in /api/status; a runaway value is cut, never stored whole.
const MAX_VALUE_LENGTH = 100;

export type UnknownValue = { field: string; value: string };

/**
 * The enumerated values of an event's `data` that neither the seed nor the provider's docs name, and the
 * name of an event whose family Tally does not project (field `unprojected_event`).
 */
export function unknownValuesOf(
  eventName: string,
  family: EventFamily,
  data: Record<string, unknown>,
): UnknownValue[] {
  if (family === 'other')
    return [{ field: 'unprojected_event', value: eventName.slice(0, MAX_VALUE_LENGTH) }];
  const found: UnknownValue[] = [];
  for (const { field, read, known } of KNOWN_BY_FAMILY[family] ?? []) {
    const value = read(data);
    if (typeof value === 'string' && !known.has(value))
      found.push({ field, value: value.slice(0, MAX_VALUE_LENGTH) });
  }
  if (family === 'payment')
    for (const { field, value } of unknownDeclineValuesOf(eventName, data))
      found.push({ field, value: value.slice(0, MAX_VALUE_LENGTH) });
  return found;
}
