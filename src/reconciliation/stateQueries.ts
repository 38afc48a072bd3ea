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

/** The projected version a reconciliation reads, in the same snapshot as the payment's facts (0: none yet). */
export async function findProjectedVersion(db: Queryable, paymentId: string): Promise<number> {
  const { rows } = await db.query<{ projected_version: number }>(
    `select projected_version from payment_reconciliation_states where payment_id = $1::text`,
    [paymentId],
  );
  return rows[0]?.projected_version ?? 0;
}

/**
 * Records that a reconciliation read `version`, unless a reconciliation of a newer version was recorded
 * first (a run overtaken by a newer one must not write its older findings over the newer ones). Locks the
 * payment's row until the caller's transaction ends, so two runs of one payment record one after the other.
 * True when this run is the newest and its findings are to be recorded.
 */
export async function recordReconciledVersion(
  db: Queryable,
  paymentId: string,
  version: number,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query(
    `insert into payment_reconciliation_states as s
            (payment_id, projected_version, reconciled_version, unreconciled_since, reconciled_at)
     values ($1::text, $2::bigint, $2::bigint, null, $3::timestamptz)
     on conflict (payment_id) do update set
       reconciled_version = excluded.reconciled_version,
       reconciled_at = excluded.reconciled_at,
       -- Changes this run did not see came after its snapshot: their wait starts now, not at the older change
       -- the run did see (a payment that keeps changing would otherwise look ever more behind).
       unreconciled_since = case when s.projected_version <= excluded.reconciled_version then null
                                 else greatest(s.unreconciled_since, excluded.reconciled_at) end
     where s.reconciled_version <= excluded.reconciled_version
     returning 1`,
    [paymentId, version, now],
  );
  return rows.length > 0;
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
