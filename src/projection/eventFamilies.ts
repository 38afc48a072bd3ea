export type EventFamily =
  | 'payment'
  | 'refund'
  | 'checkout'
  | 'checkout_completion'
  | 'dispute'
  | 'forwarding'
  | 'payout'
  | 'payout_line'
  | 'payout_line_count'
  | 'other';

/** The provider's id prefixes: the shape of `data` decides which projection it feeds. */
const FAMILY_BY_ID_PREFIX = new Map<string, EventFamily>([
  ['py', 'payment'],
  ['re', 'refund'],
  ['cho', 'checkout'],
  ['chc', 'checkout_completion'],
  ['dp', 'dispute'],
  ['fwd', 'forwarding'],
  ['po', 'payout'],
  ['bt', 'payout_line'],
]);

// Families whose objects Tally stores and counts but does not project, even if an id looks familiar.
const UNPROJECTED_NAME_PREFIXES = ['payment.dispute_evidence.', 'payment_method.', 'payment_intent.'];

// When `data.id` carries no known prefix, the seed's event names still say what the object is.
const FAMILY_BY_NAME = new Map<string, EventFamily>([
  ['payment.refunded', 'refund'],
  ['payment.refund.updated', 'refund'],
  ['checkout.created', 'checkout'],
  ['checkout.completed', 'checkout'],
  ['checkout.completion.succeeded', 'checkout_completion'],
  ['checkout.completion.failed', 'checkout_completion'],
  ['checkout.completion.processing', 'checkout_completion'],
  ['forwarding_request.completed', 'forwarding'],
  ['forwarding_request.failed', 'forwarding'],
  // Tally's own names for snapshots the missed-event sweep fetched from the provider's API.
  ['payment.api_snapshot', 'payment'],
  ['forwarding_request.api_snapshot', 'forwarding'],
  // And those the payout sync fetched: payouts, their lines, and how many lines a payout has.
  ['payout.api_snapshot', 'payout'],
  ['balance_transaction.api_snapshot', 'payout_line'],
  ['payout.lines_counted', 'payout_line_count'],
  ...['created', 'paid', 'failed', 'updated', 'canceled'].map((name): [string, EventFamily] => [
    `payout.${name}`,
    'payout',
  ]),
  ...['created', 'updated', 'succeeded', 'failed', 'pending', 'authorized', 'captured', 'canceled'].map(
    (name): [string, EventFamily] => [`payment.${name}`, 'payment'],
  ),
  ...['created', 'closed', 'forfeited', 'submitted', 'funds_returned'].map((name): [string, EventFamily] => [
    `payment.dispute.${name}`,
    'dispute',
  ]),
]);

/**
 * Which projection an event feeds: by the id prefix of its `data` (a dispute event carries a `dp_`, not a
 * payment), else by its name. Anything else is stored, counted by name and marked processed.
 */
export function familyOf(eventName: string, data: Record<string, unknown>): EventFamily {
  if (UNPROJECTED_NAME_PREFIXES.some((prefix) => eventName.startsWith(prefix))) return 'other';
  const id = typeof data.id === 'string' ? data.id : '';
  const prefix = id.includes('_') ? id.slice(0, id.indexOf('_')) : '';
  const byPrefix = FAMILY_BY_ID_PREFIX.get(prefix);
  if (byPrefix) return byPrefix;
  const byName = FAMILY_BY_NAME.get(eventName);
  // A checkout event may carry a completion object that names its checkout instead of the checkout.
  if (byName === 'checkout' && 'checkout_id' in data) return 'checkout_completion';
  if (byName === 'checkout_completion' && !('checkout_id' in data)) return 'checkout';
  return byName ?? 'other';
}
