import type { Queryable } from './pool.ts';

export type FeeConfigurationRow = {
  id: string;
  account_id: string;
  platform_account_id: string | null;
  fee_type: string;
  variable_rate: string;
  transaction_fee_cents: number;
  transaction_fee_currency: string | null;
  fee_cap_cents: number | null;
  effective_start: Date;
  effective_end: Date | null;
  provider_values: Record<string, unknown> | null;
  vanished_at: Date | null;
};

/** Every stored fee configuration version of a sub account, vanished ones included, oldest first. */
export async function listFeeConfigurations(
  db: Queryable,
  accountId: string,
): Promise<FeeConfigurationRow[]> {
  const { rows } = await db.query<FeeConfigurationRow>(
    `select id, account_id, platform_account_id, fee_type, variable_rate::text as variable_rate,
            transaction_fee_cents, transaction_fee_currency, fee_cap_cents, effective_start, effective_end,
            provider_values, vanished_at
       from fee_configurations where account_id = $1::text
      order by fee_type, effective_start, id`,
    [accountId],
  );
  return rows;
}
