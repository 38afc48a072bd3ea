import type { Queryable } from './pool.ts';

/** When the sub account's fee configuration history was last fetched whole, or null if never. */
export async function findFeeSync(db: Queryable, accountId: string): Promise<Date | null> {
  const { rows } = await db.query<{ synced_at: Date }>(
    'select synced_at from fee_configuration_syncs where account_id = $1::text',
    [accountId],
  );
  return rows[0]?.synced_at ?? null;
}
