import type { Queryable } from './pool.ts';

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
