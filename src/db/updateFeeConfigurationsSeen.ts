import type { Queryable } from './pool.ts';

/**
 * Records what one sync saw of a sub account's stored versions: `effective_end` set where the provider set
 * it (the one allowed change), the provider's values where they now differ, vanished versions, and when
 * each was last returned.
 */
export async function updateFeeConfigurationsSeen(
  db: Queryable,
  accountId: string,
  seen: {
    ended: { id: string; effectiveEnd: string }[];
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
