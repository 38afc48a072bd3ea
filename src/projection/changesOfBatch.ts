import {
  type ChangeDraft,
  type ChangedObject,
  changeTypeOf,
  insertChanges,
  type ObjectTable,
  recordChangedObjects,
  type WrittenObject,
} from '../changes/appendChanges.ts';
import type { Queryable } from '../db/pool.ts';
import { readPayoutDetail } from '../payouts/payoutDetail.ts';
import type { BatchRows } from './batchRows.ts';
import { readPaymentDetails } from './paymentDetails.ts';
import { INTERNAL, OBJECT_JSON } from './readQueries.ts';

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
    shown: `to_jsonb(o) - ${INTERNAL}`,
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
} as const satisfies Record<string, ObjectTable>;

const written = (rows: { id: string; event_row_id: number }[]): WrittenObject[] =>
  rows.map((row) => ({ id: row.id, eventRowId: row.event_row_id }));

function drafts(object: keyof typeof TABLES, changed: ChangedObject[], data: (id: string) => unknown) {
  return changed.map(
    (change): ChangeDraft => ({
      ...change,
      type: changeTypeOf(object, change.object_version),
      object,
      data: change.data ?? data(change.object_id),
    }),
  );
}

/**
 * Appends, in the batch's transaction and after all its writes, one change per object whose shown row the
 * batch changed, with the object as the API shows it now. A delivery that changed nothing appends nothing.
 */
export async function appendChangesOfBatch(db: Queryable, batch: BatchRows): Promise<void> {
  const payments = await recordChangedObjects(
    db,
    TABLES.payment,
    written(batch.payments.map(({ payment }) => payment)),
  );
  const paymentData = await readPaymentDetails(
    db,
    payments.map((change) => change.object_id),
  );
  const refunds = await recordChangedObjects(
    db,
    TABLES.refund,
    written(batch.refunds.map(({ refund }) => refund)),
  );
  const checkouts = await recordChangedObjects(db, TABLES.checkout, written(batch.checkouts));
  const disputes = await recordChangedObjects(db, TABLES.dispute, written(batch.disputes));
  const forwarding = await recordChangedObjects(
    db,
    TABLES.forwarding_request,
    written(batch.forwarding.map(({ request }) => request)),
  );
  const payouts = await recordChangedObjects(db, TABLES.payout, written(batch.payouts));
  const payoutData = new Map<string, unknown>();
  // Payouts come one or a few per batch: read as GET /api/payouts/:id reads them.
  for (const change of payouts)
    payoutData.set(change.object_id, await readPayoutDetail(db, change.object_id));
  await insertChanges(db, [
    ...drafts('payment', payments, (id) => paymentData.get(id)),
    ...drafts('refund', refunds, () => null),
    ...drafts('checkout', checkouts, () => null),
    ...drafts('dispute', disputes, () => null),
    ...drafts('forwarding_request', forwarding, () => null),
    ...drafts('payout', payouts, (id) => payoutData.get(id)),
  ]);
}
