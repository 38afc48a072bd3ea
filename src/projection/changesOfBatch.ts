import {
  appendChangedObjects,
  type ChangeDraft,
  changeTypeOf,
  insertChanges,
  type ObjectTable,
  recordChangedObjects,
  type WrittenObject,
} from '../changes/appendChanges.ts';
import type { Queryable } from '../db/pool.ts';
import type { BatchRows } from './batchRows.ts';
import { PAYMENT_COLUMNS } from './payments/paymentQueries.ts';
import { readPayoutDetail } from './payouts/payoutDetail.ts';
import { INTERNAL, INTERNAL_COLUMNS, OBJECT_JSON, paymentJson } from './readQueries.ts';

// The payment's columns the projection writes and the API shows, as a row: its text is far cheaper to digest
// than the row's JSON, which holds the provider's whole snapshot.
const PAYMENT_SHOWN = `row(${Object.keys(PAYMENT_COLUMNS)
  .filter((column) => column !== 'id' && !INTERNAL_COLUMNS.includes(column))
  .map((column) => `o.${column}`)
  .join(', ')})`;

// The provider's time of the snapshot shown: its own, or its status's when that came later.
const SNAPSHOT_TIME = 'greatest(o.updated_at, o.status_updated_at)';

/**
 * Each projected table, read for its changes. A payment's change follows its own row (a refund or dispute
 * changes only its own object); the objects the API shows inside a payment compare what it shows of them.
 */
const TABLES = {
  payment: {
    object: 'payment',
    table: 'payments',
    shown: PAYMENT_SHOWN,
    data: paymentJson('o'),
    accountId: 'o.account_id',
    accountType: 'o.account_type',
    occurredAt: SNAPSHOT_TIME,
  },
  refund: {
    object: 'refund',
    table: 'refunds',
    shown: OBJECT_JSON.refund('o'),
    data: OBJECT_JSON.refund('o'),
    accountId: 'p.account_id',
    accountType: 'p.account_type',
    occurredAt: 'o.updated_at',
    joins: 'left join payments p on p.id = o.payment_id',
  },
  checkout: {
    object: 'checkout',
    table: 'checkouts',
    shown: OBJECT_JSON.checkout('o'),
    data: OBJECT_JSON.checkout('o'),
    accountId: 'o.account_id',
    accountType: 'o.account_type',
    occurredAt: SNAPSHOT_TIME,
  },
  dispute: {
    object: 'dispute',
    table: 'disputes',
    shown: OBJECT_JSON.dispute('o'),
    data: OBJECT_JSON.dispute('o'),
    accountId: 'o.account_id',
    accountType: 'o.account_type',
    occurredAt: SNAPSHOT_TIME,
  },
  forwarding_request: {
    object: 'forwarding_request',
    table: 'forwarding_requests',
    shown: OBJECT_JSON.forwarding_request('o'),
    data: OBJECT_JSON.forwarding_request('o'),
    accountId: 'o.account_id',
    accountType: 'o.account_type',
    occurredAt: SNAPSHOT_TIME,
  },
  payout: {
    object: 'payout',
    table: 'payouts',
    // When its snapshot was received is bookkeeping: a rebuild gives the same, a newer delivery a new one.
    shown: `to_jsonb(o) - ${INTERNAL} - 'projected_at'`,
    accountId: 'o.account_id',
    accountType: 'null::text',
    occurredAt: 'o.updated_at',
  },
} as const satisfies Record<string, ObjectTable & { data?: string }>;

const written = (rows: { id: string; event_row_id: number }[]): WrittenObject[] =>
  rows.map((row) => ({ id: row.id, eventRowId: row.event_row_id }));

/**
 * Appends, in the batch's transaction and after all its writes, one change per object whose shown row the
 * batch changed, with the object as the API shows it now. A delivery that changed nothing appends nothing.
 * Tables are taken in one order, so concurrent batches lock version rows in one order too.
 */
export async function appendChangesOfBatch(db: Queryable, batch: BatchRows): Promise<void> {
  await appendChangedObjects(db, TABLES.payment, written(batch.payments.map(({ payment }) => payment)));
  await appendChangedObjects(db, TABLES.refund, written(batch.refunds.map(({ refund }) => refund)));
  await appendChangedObjects(db, TABLES.checkout, written(batch.checkouts));
  await appendChangedObjects(db, TABLES.dispute, written(batch.disputes));
  await appendChangedObjects(
    db,
    TABLES.forwarding_request,
    written(batch.forwarding.map(({ request }) => request)),
  );
  // Payouts come one or a few per batch, read as GET /api/payouts/:id reads them.
  const payouts = await recordChangedObjects(db, TABLES.payout, written(batch.payouts));
  const drafts: ChangeDraft[] = [];
  for (const change of payouts) {
    const data = await readPayoutDetail(db, change.object_id);
    drafts.push({ ...change, type: changeTypeOf('payout', change.object_version), object: 'payout', data });
  }
  await insertChanges(db, drafts);
}
