import type { Queryable } from '../../db/pool.ts';
import { type ColumnTypes, columnList, recordDefinition, setFromExcluded } from '../columnTypes.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';

export type RefundRow = {
  id: string;
  payment_id: string;
  amount: number;
  reason: string | null;
  status: string | null;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  returned_fees_updated_at: Date | '-infinity';
  returned_fees_event_row_id: number;
  snapshot: unknown;
};

export const REFUND_COLUMNS: ColumnTypes<RefundRow> = {
  id: 'text',
  payment_id: 'text',
  amount: 'bigint',
  reason: 'text',
  status: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  event_row_id: 'bigint',
  returned_fees_updated_at: 'timestamptz',
  returned_fees_event_row_id: 'bigint',
  snapshot: 'jsonb',
};

const UPSERT_REFUND = newerWinsUpsert(
  'refunds',
  REFUND_COLUMNS,
  {
    groups: [
      {
        key: ['updated_at', 'event_row_id'],
        columns: ['payment_id', 'amount', 'reason', 'status', 'created_at', 'snapshot'],
      },
      { key: ['returned_fees_updated_at', 'returned_fees_event_row_id'], columns: [] },
    ],
  },
  'returning id, returned_fees_event_row_id',
);

/**
 * Upserts a batch of refund snapshots. Returns, per refund, the delivery row whose returned fees are now
 * the ones shown (0: none has shown them yet).
 */
export async function upsertRefunds(db: Queryable, rows: RefundRow[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const result = await runNewerWinsUpsert<RefundRow, { id: string; returned_fees_event_row_id: number }>(
    db,
    UPSERT_REFUND,
    rows,
  );
  return new Map(result.rows.map((row) => [row.id, row.returned_fees_event_row_id]));
}

export type ReturnedFeeRow = {
  id: string;
  refund_id: string;
  payment_fee_id: string | null;
  type: string | null;
  returned_amount: number | null;
  original_amount: number | null;
  remaining_amount: number | null;
  currency: string | null;
};

export const RETURNED_FEE_COLUMNS: ColumnTypes<ReturnedFeeRow> = {
  id: 'text',
  refund_id: 'text',
  payment_fee_id: 'text',
  type: 'text',
  returned_amount: 'bigint',
  original_amount: 'bigint',
  remaining_amount: 'bigint',
  currency: 'text',
};

const returnedFeeColumns = columnList(RETURNED_FEE_COLUMNS);

const REPLACE_RETURNED_FEES_SQL = `with incoming as (
       select * from jsonb_to_recordset($2::jsonb) as r(${recordDefinition(RETURNED_FEE_COLUMNS)})
     ), removed as (
       delete from returned_fees
        where refund_id = any($1::text[]) and not exists (select from incoming where incoming.id = returned_fees.id)
     )
     insert into returned_fees (${returnedFeeColumns})
     select ${returnedFeeColumns} from incoming order by id
     on conflict (id) do update set ${setFromExcluded(RETURNED_FEE_COLUMNS)}`;

/** Makes the returned-fee rows of each refund given exactly those of its newest snapshot. */
export async function replaceReturnedFees(db: Queryable, refundIds: string[], fees: ReturnedFeeRow[]) {
  if (refundIds.length === 0) return;
  await db.query(REPLACE_RETURNED_FEES_SQL, [refundIds, JSON.stringify(fees)]);
}

/**
 * Gives the refunds named, and the refunds of the payments named, their payment's account key (type, account,
 * currency), so the close sums refunds per account without reading every payment. A refund projected before its
 * payment gets it when the payment arrives. Only rows whose key is missing or differs are locked, and one that
 * another batch holds is skipped rather than waited for (two batches could otherwise each wait on the other's
 * refunds): a refund left without a key is still counted, the close reads its payment
 * (docs/decisions/0018-refund-account-key.md).
 */
export async function copyRefundAccountKeys(db: Queryable, refundIds: string[], paymentIds: string[]) {
  if (refundIds.length === 0 && paymentIds.length === 0) return;
  await db.query(
    `update refunds r set account_type = p.account_type, account_id = p.account_id, currency = p.currency
       from payments p
      where p.id = r.payment_id
        and r.id in (select k.id from refunds k join payments kp on kp.id = k.payment_id
                      where (k.id = any($1::text[]) or k.payment_id = any($2::text[]))
                        and (k.account_id, k.account_type, k.currency)
                            is distinct from (kp.account_id, kp.account_type, kp.currency)
                        for update of k skip locked)`,
    [refundIds, paymentIds],
  );
}
