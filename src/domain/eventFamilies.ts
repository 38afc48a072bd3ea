export type EventFamily = 'payment' | 'refund' | 'checkout' | 'forwarding' | 'other';

const REFUND_EVENTS = new Set(['payment.refunded', 'payment.refund.updated']);

/** Which projection an event name feeds. Other names are stored and counted, never rejected. */
export function familyOf(eventName: string): EventFamily {
  if (REFUND_EVENTS.has(eventName)) return 'refund';
  if (eventName.startsWith('payment.')) return 'payment';
  if (eventName.startsWith('checkout.')) return 'checkout';
  if (eventName.startsWith('forwarding_request.')) return 'forwarding';
  return 'other';
}
