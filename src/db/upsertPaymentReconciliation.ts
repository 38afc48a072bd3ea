import type { Queryable } from './pool.ts';

export async function upsertPaymentReconciliation(
  db: Queryable,
  row: { paymentId: string; accountId: string; reconciledAt: Date; overrides: number; unverified: number },
): Promise<void> {
  await db.query(
    `insert into payment_reconciliations (payment_id, account_id, reconciled_at, overrides, unverified)
     values ($1::text, $2::text, $3::timestamptz, $4::int, $5::int)
     on conflict (payment_id) do update set account_id = excluded.account_id,
       reconciled_at = excluded.reconciled_at, overrides = excluded.overrides, unverified = excluded.unverified`,
    [row.paymentId, row.accountId, row.reconciledAt, row.overrides, row.unverified],
  );
}
