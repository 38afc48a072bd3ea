import type { Queryable } from './pool.ts';

export const PROJECTION_TABLES = [
  'payments',
  'payment_fees',
  'refunds',
  'returned_fees',
  'checkouts',
  'forwarding_requests',
  'forwarding_outcomes',
  'disputes',
  'unknown_values',
] as const;

/** Empties every projection and marks every non-quarantined delivery as waiting to be processed again. */
export async function resetProjections(db: Queryable): Promise<void> {
  await db.query(`truncate ${PROJECTION_TABLES.join(', ')}`);
  await db.query(
    `update events set status = 'received', processed_at = null, error = null where status <> 'quarantined'`,
  );
}
