import type { Queryable } from '../db/pool.ts';

export type AccountSyncRow = {
  account_id: string;
  /** The latest completed payout sync of the account, null when none ever completed. */
  payout_synced_at: Date | null;
  /** The latest completed missed-event sweep of the account, null when none ever completed. */
  swept_at: Date | null;
};

/** When each of these accounts last completed a payout sync and a missed-event sweep. */
export async function listAccountSyncs(db: Queryable, accountIds: string[]): Promise<AccountSyncRow[]> {
  const { rows } = await db.query<AccountSyncRow>(
    `select a.account_id, s.synced_at as payout_synced_at,
            (select max(r.finished_at) from sweep_runs r
              where r.account_id = a.account_id and r.status = 'completed' and r.kind = 'sweep') as swept_at
       from unnest($1::text[]) as a(account_id)
       left join payout_sync_accounts s on s.account_id = a.account_id
      order by a.account_id`,
    [accountIds],
  );
  return rows;
}
