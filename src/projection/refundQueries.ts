import type { Queryable } from '../db/pool.ts';
import { type ColumnTypes, columnList, recordDefinition, setFromExcluded } from './columnTypes.ts';
import { newerWinsUpsert } from './newerWins.ts';

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

const REFUND_COLUMNS: ColumnTypes<RefundRow> = {
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

const UPSERT_REFUND_SQL = `${newerWinsUpsert('refunds', REFUND_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: ['payment_id', 'amount', 'reason', 'status', 'created_at', 'snapshot'],
    },
    { key: ['returned_fees_updated_at', 'returned_fees_event_row_id'], columns: [] },
  ],
})}
  returning event_row_id = $2::bigint as current, returned_fees_event_row_id = $2::bigint as fees_current`;

/**
 * Upserts a refund snapshot; `current` / `feesCurrent` say whether this
 * snapshot (its fields / its fee list) is now the one shown.
 */
export async function upsertRefund(
  db: Queryable,
  row: RefundRow,
): Promise<{ current: boolean; feesCurrent: boolean }> {
  const { rows } = await db.query<{ current: boolean; fees_current: boolean }>(UPSERT_REFUND_SQL, [
    row,
    row.event_row_id,
  ]);
  return { current: rows[0]?.current ?? false, feesCurrent: rows[0]?.fees_current ?? false };
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

const RETURNED_FEE_COLUMNS: ColumnTypes<ReturnedFeeRow> = {
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
       delete from returned_fees where refund_id = $1::text and id not in (select id from incoming)
     )
     insert into returned_fees (${returnedFeeColumns})
     select ${returnedFeeColumns} from incoming
     on conflict (id) do update set ${setFromExcluded(RETURNED_FEE_COLUMNS)}`;

/** Makes a refund's returned-fee rows exactly those of its newest snapshot. */
export async function replaceReturnedFees(db: Queryable, refundId: string, fees: ReturnedFeeRow[]) {
  // Stringified here: pg would send a JavaScript array as a Postgres array, not as jsonb.
  await db.query(REPLACE_RETURNED_FEES_SQL, [refundId, JSON.stringify(fees)]);
}
