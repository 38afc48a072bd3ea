import type { ConfigurationVersion } from '../domain/compareFeeHistory.ts';
import type { Queryable } from './pool.ts';

/** Stores newly seen configuration versions as first seen; a version already stored is left alone. */
export async function insertFeeConfigurations(
  db: Queryable,
  versions: (ConfigurationVersion & { platformAccountId: string | null })[],
  now: Date,
): Promise<void> {
  if (versions.length === 0) return;
  await db.query(
    `insert into fee_configurations (id, account_id, platform_account_id, fee_type, variable_rate,
                                     transaction_fee_cents, transaction_fee_currency, fee_cap_cents,
                                     effective_start, effective_end, first_seen_at, last_seen_at)
     select v.id, v."accountId", v."platformAccountId", v."feeType", v."variableRate"::numeric,
            v."transactionFeeCents", v."transactionFeeCurrency", v."feeCapCents",
            v."effectiveStart"::timestamptz, v."effectiveEnd"::timestamptz, $2::timestamptz, $2::timestamptz
       from jsonb_to_recordset($1::jsonb) as v(id text, "accountId" text, "platformAccountId" text, "feeType" text,
            "variableRate" text, "transactionFeeCents" bigint, "transactionFeeCurrency" text, "feeCapCents" bigint,
            "effectiveStart" text, "effectiveEnd" text)
     on conflict (id) do nothing`,
    [JSON.stringify(versions), now],
  );
}
