import type { Queryable } from '../db/pool.ts';
import type { FeeConfiguration } from '../domain/feeConfiguration.ts';

/** Stores newly seen configuration versions as first seen; a version already stored is left alone. */
export async function insertFeeConfigurations(
  db: Queryable,
  versions: FeeConfiguration[],
  now: Date,
): Promise<void> {
  if (versions.length === 0) return;
  await db.query(
    `insert into fee_configurations (id, account_id, platform_account_id, fee_type, variable_rate,
                                     transaction_fee_cents, transaction_fee_currency, fee_cap_cents,
                                     effective_start, effective_end, first_seen_at, last_seen_at)
     select v.id, v."accountId", v."platformAccountId", v."feeType", v."variableRate"::numeric,
            v."transactionFeeCents", v."transactionFeeCurrency", v."feeCapCents",
            v."effectiveStart", v."effectiveEnd", $2::timestamptz, $2::timestamptz
       from jsonb_to_recordset($1::jsonb) as v(id text, "accountId" text, "platformAccountId" text, "feeType" text,
            "variableRate" text, "transactionFeeCents" bigint, "transactionFeeCurrency" text, "feeCapCents" bigint,
            "effectiveStart" timestamptz, "effectiveEnd" timestamptz)
     on conflict (id) do nothing`,
    [JSON.stringify(versions), now],
  );
}

/**
 * Records what one sync saw of a sub account's stored versions: `effective_end` set where the provider set
 * it (the one allowed change), the provider's values where they now differ, vanished versions, and when
 * each was last returned.
 */
export async function updateFeeConfigurationsSeen(
  db: Queryable,
  accountId: string,
  seen: {
    ended: { id: string; effectiveEnd: Date }[];
    rewritten: { id: string; providerValues: unknown }[];
    vanished: string[];
  },
  now: Date,
): Promise<void> {
  await db.query(
    `with ended as (select * from jsonb_to_recordset($2::jsonb) as e(id text, "effectiveEnd" timestamptz)),
          rewritten as (select * from jsonb_to_recordset($3::jsonb) as r(id text, "providerValues" jsonb))
     update fee_configurations c set
       effective_end = coalesce((select "effectiveEnd" from ended where ended.id = c.id), c.effective_end),
       provider_values = (select "providerValues" from rewritten where rewritten.id = c.id),
       vanished_at = case when c.id = any($4::text[]) then coalesce(c.vanished_at, $5::timestamptz) end,
       last_seen_at = case when c.id = any($4::text[]) then c.last_seen_at else $5::timestamptz end
     where c.account_id = $1::text`,
    [accountId, JSON.stringify(seen.ended), JSON.stringify(seen.rewritten), seen.vanished, now],
  );
}

export async function upsertFeeSync(db: Queryable, accountId: string, syncedAt: Date): Promise<void> {
  await db.query(
    `insert into fee_configuration_syncs (account_id, synced_at) values ($1::text, $2::timestamptz)
     on conflict (account_id) do update set synced_at = excluded.synced_at`,
    [accountId, syncedAt],
  );
}

/** Which of these sub accounts have had their fee configuration history fetched whole at least once. */
export async function findSyncedAccounts(db: Queryable, accountIds: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ account_id: string }>(
    'select account_id from fee_configuration_syncs where account_id = any($1::text[])',
    [accountIds],
  );
  return new Set(rows.map((row) => row.account_id));
}

// The `FeeConfiguration` columns, aliased to its keys; `variable_rate` as text keeps the decimal exact.
const CONFIGURATION_COLUMNS = `id, account_id as "accountId", platform_account_id as "platformAccountId",
  fee_type as "feeType", variable_rate::text as "variableRate", transaction_fee_cents as "transactionFeeCents",
  transaction_fee_currency as "transactionFeeCurrency", fee_cap_cents as "feeCapCents",
  effective_start as "effectiveStart", effective_end as "effectiveEnd"`;

/** Every stored fee configuration version of a sub account, vanished ones included, oldest first. */
export async function listFeeConfigurations(db: Queryable, accountId: string): Promise<FeeConfiguration[]> {
  return listFeeConfigurationsOfAccounts(db, [accountId]);
}

/** `listFeeConfigurations` of several sub accounts in one query: each account's versions, oldest first. */
export async function listFeeConfigurationsOfAccounts(
  db: Queryable,
  accountIds: string[],
): Promise<FeeConfiguration[]> {
  const { rows } = await db.query<FeeConfiguration>(
    `select ${CONFIGURATION_COLUMNS}
       from fee_configurations where account_id = any($1::text[])
      order by account_id, fee_type, effective_start, id`,
    [accountIds],
  );
  return rows;
}

/** A stored version with what later syncs saw of it. */
export type StoredFeeConfiguration = FeeConfiguration & {
  /** What the provider returned last time, when it differs from the stored version. */
  providerValues: Record<string, unknown> | null;
  vanishedAt: Date | null;
};

/** Like `listFeeConfigurations`, with what later syncs saw: rewritten values, and when a version vanished. */
export async function listFeeConfigurationHistory(
  db: Queryable,
  accountId: string,
): Promise<StoredFeeConfiguration[]> {
  const { rows } = await db.query<StoredFeeConfiguration>(
    `select ${CONFIGURATION_COLUMNS}, provider_values as "providerValues", vanished_at as "vanishedAt"
       from fee_configurations where account_id = $1::text
      order by fee_type, effective_start, id`,
    [accountId],
  );
  return rows;
}

export async function listFeeConfigurationAccounts(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(
    'select distinct account_id from fee_configurations order by account_id',
  );
  return rows.map((row) => row.account_id);
}

/**
 * The sub accounts to sync and sweep: the one named, or those configured (PROVIDER_SUB_ACCOUNTS, known
 * before any of their events arrive) and every one Tally has projected something for.
 */
export async function listSubAccounts(
  db: Queryable,
  { named, configured }: { named?: string | undefined; configured?: readonly string[] | undefined },
): Promise<string[]> {
  if (named !== undefined) return [named];
  const { rows } = await db.query<{ account_id: string }>(
    `select unnest($1::text[]) as account_id union select account_id from payments
     union select account_id from checkouts union select account_id from forwarding_requests
     order by account_id`,
    [configured ?? []],
  );
  return rows.map((row) => row.account_id);
}

/** A page of a sub account's payment ids, in id order, after `afterId`. */
export async function listPaymentIdsOfAccount(
  db: Queryable,
  accountId: string,
  page: { afterId: string; limit: number },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'select id from payments where account_id = $1::text and id > $2::text order by id limit $3::int',
    [accountId, page.afterId, page.limit],
  );
  return rows.map((row) => row.id);
}
