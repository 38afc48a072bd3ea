import type { Queryable } from '../db/pool.ts';

export type ListedPayout = { id: string; updatedAt: Date | null; status: string | null };

/**
 * Of these payouts as the provider lists them, those Tally already has in that state with every line: the
 * sync stored their lines and line count for a state at least as new, or the projection shows a state at
 * least as new, with the same status, and all its lines.
 */
export async function findSyncedPayouts(db: Queryable, listed: ListedPayout[]): Promise<Set<string>> {
  if (listed.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `select l.id from unnest($1::text[], $2::timestamptz[], $3::text[]) as l(id, updated_at, status)
      where exists (select 1 from payout_line_syncs s
                     where s.payout_id = l.id and s.payout_status = l.status
                       and (l.updated_at is null or s.payout_updated_at >= l.updated_at))
         or exists (select 1 from payouts p
                     where p.id = l.id and p.status = l.status and p.lines_complete
                       and (l.updated_at is null or p.updated_at >= l.updated_at))`,
    [
      listed.map((payout) => payout.id),
      listed.map((payout) => payout.updatedAt),
      listed.map((payout) => payout.status),
    ],
  );
  return new Set(rows.map((row) => row.id));
}

/** The payout state whose lines and line count are now stored in the raw log. */
export async function recordPayoutLineSync(
  db: Queryable,
  sync: {
    payoutId: string;
    accountId: string;
    updatedAt: Date | null;
    status: string;
    lineCount: number;
    at: Date;
  },
): Promise<void> {
  await db.query(
    `insert into payout_line_syncs (payout_id, account_id, payout_updated_at, payout_status, line_count, synced_at)
     values ($1::text, $2::text, $3::timestamptz, $4::text, $5::int, $6::timestamptz)
     on conflict (payout_id) do update set account_id = excluded.account_id,
       payout_updated_at = excluded.payout_updated_at, payout_status = excluded.payout_status,
       line_count = excluded.line_count, synced_at = excluded.synced_at`,
    [sync.payoutId, sync.accountId, sync.updatedAt, sync.status, sync.lineCount, sync.at],
  );
}

/** Of the payments payout lines name, those Tally neither has nor fetched for a payout before. */
export async function listPaymentsToFetch(db: Queryable, paymentIds: string[]): Promise<string[]> {
  if (paymentIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `select id from unnest($1::text[]) as named(id)
      where not exists (select 1 from payments p where p.id = named.id)
        and not exists (select 1 from payout_payment_fetches f where f.payment_id = named.id)
      order by id`,
    [paymentIds],
  );
  return rows.map((row) => row.id);
}

/** Held until the transaction ends: one sync at a time fetches a given payment. */
export async function lockPaymentFetch(db: Queryable, paymentId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('payout-payment-fetch:' || $1::text, 0))`, [
    paymentId,
  ]);
}

/** A payment fetched for a payout line, found or not: it is never fetched again. */
export async function recordPaymentFetch(
  db: Queryable,
  fetch: { paymentId: string; accountId: string; payoutId: string; found: boolean; at: Date },
): Promise<void> {
  await db.query(
    `insert into payout_payment_fetches (payment_id, account_id, payout_id, found, fetched_at)
     values ($1::text, $2::text, $3::text, $4::boolean, $5::timestamptz)
     on conflict do nothing`,
    [fetch.paymentId, fetch.accountId, fetch.payoutId, fetch.found, fetch.at],
  );
}

/**
 * A full listing of an account's payouts, created since `listedFrom`, finished. The newest payout seen only
 * moves forward; the listing start only moves back, so it stays the first completed listing's start (rule 3's
 * window) unless a longer PAYOUT_LOOKBACK_DAYS has listed further back since.
 */
export async function recordAccountSync(
  db: Queryable,
  accountId: string,
  sync: { at: Date; listedFrom: Date; newestPayoutCreatedAt: Date | null },
): Promise<void> {
  await db.query(
    `insert into payout_sync_accounts (account_id, synced_at, listed_from, newest_payout_created_at)
     values ($1::text, $2::timestamptz, $3::timestamptz, $4::timestamptz)
     on conflict (account_id) do update set synced_at = excluded.synced_at,
       listed_from = least(payout_sync_accounts.listed_from, excluded.listed_from),
       newest_payout_created_at = greatest(payout_sync_accounts.newest_payout_created_at,
                                           excluded.newest_payout_created_at)`,
    [accountId, sync.at, sync.listedFrom, sync.newestPayoutCreatedAt],
  );
}
