import type { Queryable } from './pool.ts';

/** Every sub account Tally has projected something for. */
export async function listSeenAccounts(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(
    `select account_id from payments union select account_id from checkouts
     union select account_id from forwarding_requests order by account_id`,
  );
  return rows.map((row) => row.account_id);
}
