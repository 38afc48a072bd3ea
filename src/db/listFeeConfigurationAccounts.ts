import type { Queryable } from './pool.ts';

export async function listFeeConfigurationAccounts(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(
    'select distinct account_id from fee_configurations order by account_id',
  );
  return rows.map((row) => row.account_id);
}
