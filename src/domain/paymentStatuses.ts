/** A payment whose money moved: it succeeded, and refunds or a dispute may have followed. */
export const SETTLED_PAYMENT_STATUSES = [
  'succeeded',
  'partially_refunded',
  'fully_refunded',
  'refunded',
  'disputed',
] as const;

/** A settled payment whose money the provider still pays out: not refunded in full. */
export const PAYABLE_PAYMENT_STATUSES = ['succeeded', 'partially_refunded', 'disputed'] as const;

/** A list of these constant statuses as SQL: `('succeeded', 'disputed')`. */
export const sqlStatuses = (statuses: readonly string[]) =>
  `(${statuses.map((status) => `'${status}'`).join(', ')})`;
