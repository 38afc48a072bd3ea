import type { Queryable } from '../db/pool.ts';

/**
 * Raises the projected version of each payment a projection transaction touched; run it in that transaction.
 * Ids are locked in sorted order, so two batches touching the same payments never deadlock on them.
 */
export async function markPaymentsProjected(db: Queryable, paymentIds: string[]): Promise<void> {
  if (paymentIds.length === 0) return;
  await db.query(
    `insert into payment_reconciliation_states as s (payment_id, projected_version, unreconciled_since)
     select id, 1, now() from unnest($1::text[]) as id order by id
     on conflict (payment_id) do update set
       projected_version = s.projected_version + 1,
       unreconciled_since = coalesce(s.unreconciled_since, now())`,
    [[...new Set(paymentIds)].sort()],
  );
}

/** The projected version of each payment, in the same snapshot as their facts (absent: none yet, 0). */
export async function findProjectedVersions(
  db: Queryable,
  paymentIds: string[],
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ payment_id: string; projected_version: number }>(
    `select payment_id, projected_version from payment_reconciliation_states where payment_id = any($1::text[])`,
    [paymentIds],
  );
  return new Map(rows.map((row) => [row.payment_id, row.projected_version]));
}

export type ReadVersion = { paymentId: string; version: number };

/**
 * Records that a reconciliation read each payment at `version`, unless a reconciliation of a newer version
 * was recorded first (a run overtaken by a newer one must not write its older findings over the newer ones).
 * Locks the payments' rows in the order `markPaymentsProjected` does (no deadlock with a projection or
 * another run) until the caller's transaction ends, so two runs of one payment record one after the other.
 * Returns the payments this run is the newest for: their findings are to be recorded.
 */
export async function recordReconciledVersions(
  db: Queryable,
  read: ReadVersion[],
  now: Date,
): Promise<Set<string>> {
  const { rows } = await db.query<{ payment_id: string }>(
    `insert into payment_reconciliation_states as s
            (payment_id, projected_version, reconciled_version, unreconciled_since, reconciled_at)
     select id, version, version, null, $3::timestamptz
       from unnest($1::text[], $2::bigint[]) as r(id, version)
      order by id
     on conflict (payment_id) do update set
       reconciled_version = excluded.reconciled_version,
       reconciled_at = excluded.reconciled_at,
       -- Changes this run did not see came after its snapshot: their wait starts now, not at the older change
       -- the run did see (a payment that keeps changing would otherwise look ever more behind).
       unreconciled_since = case when s.projected_version <= excluded.reconciled_version then null
                                 else greatest(s.unreconciled_since, excluded.reconciled_at) end
     where s.reconciled_version <= excluded.reconciled_version
     returning payment_id`,
    [read.map((run) => run.paymentId), read.map((run) => run.version), now],
  );
  return new Set(rows.map((row) => row.payment_id));
}

/**
 * Payments whose newest projection change no reconciliation has seen for `graceSeconds` or more (on the
 * database's clock, which stamped the change), oldest first, at most `limit` (the next pass takes the rest).
 */
export async function listUnreconciledPayments(
  db: Queryable,
  graceSeconds: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ payment_id: string }>(
    `select payment_id from payment_reconciliation_states
      where unreconciled_since is not null and unreconciled_since <= now() - $1::int * interval '1 second'
      order by unreconciled_since
      limit $2::int`,
    [graceSeconds, limit],
  );
  return rows.map((row) => row.payment_id);
}

/**
 * Payments whose newest projection change no reconciliation has seen yet, in id order after `afterId`, at
 * most `limit`: a page of what a rebuild leaves to judge.
 */
export async function listUnreconciledPaymentsAfter(
  db: Queryable,
  afterId: string,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ payment_id: string }>(
    `select payment_id from payment_reconciliation_states
      where payment_id > $1 and unreconciled_since is not null
      order by payment_id limit $2::int`,
    [afterId, limit],
  );
  return rows.map((row) => row.payment_id);
}

export type ReconciliationLag = { unreconciledPayments: number; oldestUnreconciledSeconds: number | null };

/**
 * How many payments wait for a reconciliation of their newest state, and for how many seconds the oldest
 * has: measured on the database's clock, which stamped `unreconciled_since`.
 */
export async function summarizeReconciliationLag(db: Queryable): Promise<ReconciliationLag> {
  const { rows } = await db.query<ReconciliationLag>(
    `select count(*)::int as "unreconciledPayments",
            floor(extract(epoch from now() - min(unreconciled_since)))::int as "oldestUnreconciledSeconds"
       from payment_reconciliation_states
      where unreconciled_since is not null`,
  );
  return rows[0] ?? { unreconciledPayments: 0, oldestUnreconciledSeconds: null };
}

export type PaymentReconciliation = {
  paymentId: string;
  accountId: string;
  reconciledAt: Date;
  overrides: number;
  unverified: number;
};

/** What each reconciled payment's fee checks could not verify, or verified against an override. */
export async function upsertPaymentReconciliations(
  db: Queryable,
  rows: PaymentReconciliation[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into payment_reconciliations (payment_id, account_id, reconciled_at, overrides, unverified)
     select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::int[])
     on conflict (payment_id) do update set account_id = excluded.account_id,
       reconciled_at = excluded.reconciled_at, overrides = excluded.overrides, unverified = excluded.unverified`,
    [
      rows.map((row) => row.paymentId),
      rows.map((row) => row.accountId),
      rows.map((row) => row.reconciledAt),
      rows.map((row) => row.overrides),
      rows.map((row) => row.unverified),
    ],
  );
}
