import type { Queryable } from './pool.ts';

export async function upsertFeeSync(db: Queryable, accountId: string, syncedAt: Date): Promise<void> {
  await db.query(
    `insert into fee_configuration_syncs (account_id, synced_at) values ($1::text, $2::timestamptz)
     on conflict (account_id) do update set synced_at = excluded.synced_at`,
    [accountId, syncedAt],
  );
}
