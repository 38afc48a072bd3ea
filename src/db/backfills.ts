import type { Backfill } from './backfill.ts';

/**
 * The backfills `release` runs, in order, after the migrations. A backfill ships in the release whose
 * migration added the columns it fills, and the code of that release already writes them for new rows
 * (docs/operations.md, "Upgrading and migrations"). A finished backfill stays listed: it is skipped.
 */
export const BACKFILLS: readonly Backfill[] = [
  {
    // Each refund's payment's account key (migration 0034; the projection writes it: copyRefundAccountKeys).
    name: '0034_refund_account_keys',
    table: 'refunds',
    key: 'id',
    keyType: 'text',
    update: `update refunds r set account_type = p.account_type, account_id = p.account_id, currency = p.currency
               from payments p
              where r.id between $1::text and $2::text and r.account_id is null and p.id = r.payment_id`,
    batchSize: 2000,
  },
];
