import type { Queryable } from '../db/pool.ts';

export type FeeCheckSummary = {
  lastFeeSyncAt: Date | null;
  unverifiedPayments: number;
  overriddenFees: number;
};

/**
 * When fee configurations were last synced, and how many fee checks could not be or were not made. The subject
 * is the reconciliation of fees; the last sync time is read from `fee_configuration_syncs` (src/feeConfigurations)
 * in the same statement, since a check is unverified when no synced configuration covers it.
 */
export async function summarizeFeeChecks(db: Queryable): Promise<FeeCheckSummary> {
  const { rows } = await db.query<FeeCheckSummary>(
    `select (select max(synced_at) from fee_configuration_syncs) as "lastFeeSyncAt",
            (select count(*) from payment_reconciliations where unverified > 0)::int as "unverifiedPayments",
            (select coalesce(sum(overrides), 0) from payment_reconciliations)::int as "overriddenFees"`,
  );
  return rows[0] ?? { lastFeeSyncAt: null, unverifiedPayments: 0, overriddenFees: 0 };
}
