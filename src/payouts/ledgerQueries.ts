import type { Queryable } from '../db/pool.ts';

/** A balance transaction of the provider's ledger, its amounts normalized as payout lines are. */
export type LedgerLineRow = {
  id: string;
  payout_id: string | null;
  txn_type: string;
  kind: string;
  net: number;
  currency: string;
  source_id: string | null;
  source_type: string | null;
  source_payment_id: string | null;
  created_at: string;
};

export type LedgerListingRow = {
  account_id: string;
  listed_at: Date | null;
  full_listed_at: Date | null;
  lines: number;
  failed_at: Date | null;
  error: string | null;
};

export async function findLedgerListing(db: Queryable, accountId: string): Promise<LedgerListingRow | null> {
  const { rows } = await db.query<LedgerListingRow>(
    `select account_id, listed_at, full_listed_at, lines, failed_at, error
       from provider_ledger_listings where account_id = $1::text`,
    [accountId],
  );
  return rows[0] ?? null;
}

/** When the newest line held of the account was created, or null with none. */
export async function findNewestLedgerLine(db: Queryable, accountId: string): Promise<Date | null> {
  const { rows } = await db.query<{ newest: Date | null }>(
    'select max(created_at) as newest from provider_ledger_lines where account_id = $1::text',
    [accountId],
  );
  return rows[0]?.newest ?? null;
}

/** Stores a page of a listing: new lines added, those held replaced by what the provider shows now. */
export async function upsertLedgerLines(
  db: Queryable,
  accountId: string,
  lines: LedgerLineRow[],
  listedAt: Date,
): Promise<void> {
  if (lines.length === 0) return;
  await db.query(
    `insert into provider_ledger_lines (account_id, id, payout_id, txn_type, kind, net, currency, source_id,
                                        source_type, source_payment_id, created_at, listed_at)
     select $1::text, l.id, l.payout_id, l.txn_type, l.kind, l.net, l.currency, l.source_id, l.source_type,
            l.source_payment_id, l.created_at, $3::timestamptz
       from jsonb_to_recordset($2::jsonb) as l(id text, payout_id text, txn_type text, kind text, net bigint,
            currency text, source_id text, source_type text, source_payment_id text, created_at timestamptz)
     on conflict (account_id, id) do update set payout_id = excluded.payout_id, txn_type = excluded.txn_type,
       kind = excluded.kind, net = excluded.net, currency = excluded.currency, source_id = excluded.source_id,
       source_type = excluded.source_type, source_payment_id = excluded.source_payment_id,
       created_at = excluded.created_at, listed_at = excluded.listed_at`,
    [accountId, JSON.stringify(lines), listedAt],
  );
}

/** After a full listing: the lines it did not show are gone from the provider's ledger. */
export async function deleteLedgerLinesNotListed(db: Queryable, accountId: string, listedAt: Date) {
  await db.query(
    'delete from provider_ledger_lines where account_id = $1::text and listed_at < $2::timestamptz',
    [accountId, listedAt],
  );
}

/** A listing completed: the previous failure, if any, is over. */
export async function recordLedgerListing(
  db: Queryable,
  accountId: string,
  listing: { at: Date; full: boolean },
): Promise<void> {
  await db.query(
    `insert into provider_ledger_listings (account_id, listed_at, full_listed_at, lines)
     values ($1::text, $2::timestamptz, case when $3::boolean then $2::timestamptz end,
             (select count(*) from provider_ledger_lines where account_id = $1::text))
     on conflict (account_id) do update set listed_at = excluded.listed_at,
       full_listed_at = coalesce(excluded.full_listed_at, provider_ledger_listings.full_listed_at),
       lines = excluded.lines, failed_at = null, error = null`,
    [accountId, listing.at, listing.full],
  );
}

/** A listing failed: the previous one stays in place, and the failure is shown until one completes. */
export async function recordLedgerFailure(
  db: Queryable,
  accountId: string,
  failure: { at: Date; error: string },
): Promise<void> {
  await db.query(
    `insert into provider_ledger_listings (account_id, failed_at, error) values ($1::text, $2::timestamptz, $3::text)
     on conflict (account_id) do update set failed_at = excluded.failed_at, error = excluded.error`,
    [accountId, failure.at, failure.error],
  );
}

/** Accounts whose latest ledger listing failed, for GET /api/status. */
export async function listFailedLedgerListings(db: Queryable): Promise<LedgerListingRow[]> {
  const { rows } = await db.query<LedgerListingRow>(
    `select account_id, listed_at, full_listed_at, lines, failed_at, error
       from provider_ledger_listings where failed_at is not null order by account_id`,
  );
  return rows;
}
