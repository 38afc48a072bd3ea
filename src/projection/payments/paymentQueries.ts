import type { Queryable } from '../../db/pool.ts';
import { type ColumnTypes, columnList, recordDefinition, setFromExcluded } from '../columnTypes.ts';
import type { CardColumns, DeclineColumns } from '../declines/declineRows.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';
import type { MethodKind } from './paymentSnapshot.ts';

export type PaymentRow = {
  id: string;
  account_id: string;
  account_type: string;
  amount: number;
  currency: string;
  status: string | null;
  status_terminal: boolean;
  status_updated_at: Date | '-infinity';
  status_event_row_id: number;
  capture_strategy: string | null;
  captured: boolean | null;
  payment_mode: string | null;
  method_kind: MethodKind | null;
  card_brand: string | null;
  expedited: boolean;
  fee_amount: number | null;
  application_fee_amount: number | null;
  amount_refunded: number | null;
  returned: boolean | null;
  amount_returned: number | null;
  error_code: string | null;
  error_description: string | null;
  checkout_id: string | null;
  payment_method_id: string | null;
  created_at: Date | null;
  updated_at: Date;
  /** `updated_at` if a webhook delivered this snapshot, null for an API snapshot. */
  delivered_updated_at: Date | null;
  event_row_id: number;
  authorized_at: Date | null;
  captured_at: Date | null;
  succeeded_at: Date | null;
  failed_at: Date | null;
  canceled_at: Date | null;
  fees_updated_at: Date | '-infinity';
  fees_event_row_id: number;
  snapshot: unknown;
} & FeeTotals &
  CardColumns &
  DeclineColumns;

/** Sums of the shown fee list, in cents (0 while none is shown): what the daily report adds up per payment. */
export type FeeTotals = {
  fees_total: number;
  fees_processing: number;
  fees_platform: number;
  fees_other: number;
  fees_configured: number;
  fees_explicit: number;
};

export const PAYMENT_COLUMNS: ColumnTypes<PaymentRow> = {
  id: 'text',
  account_id: 'text',
  account_type: 'text',
  amount: 'bigint',
  currency: 'text',
  status: 'text',
  status_terminal: 'boolean',
  status_updated_at: 'timestamptz',
  status_event_row_id: 'bigint',
  capture_strategy: 'text',
  captured: 'boolean',
  payment_mode: 'text',
  method_kind: 'text',
  card_brand: 'text',
  expedited: 'boolean',
  fee_amount: 'bigint',
  application_fee_amount: 'bigint',
  amount_refunded: 'bigint',
  returned: 'boolean',
  amount_returned: 'bigint',
  error_code: 'text',
  error_description: 'text',
  checkout_id: 'text',
  payment_method_id: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  delivered_updated_at: 'timestamptz',
  event_row_id: 'bigint',
  authorized_at: 'timestamptz',
  captured_at: 'timestamptz',
  succeeded_at: 'timestamptz',
  failed_at: 'timestamptz',
  canceled_at: 'timestamptz',
  fees_updated_at: 'timestamptz',
  fees_event_row_id: 'bigint',
  fees_total: 'bigint',
  fees_processing: 'bigint',
  fees_platform: 'bigint',
  fees_other: 'bigint',
  fees_configured: 'bigint',
  fees_explicit: 'bigint',
  snapshot: 'jsonb',
  card_last_four: 'text',
  card_expiry: 'text',
  card_key: 'text',
  decline_code: 'text',
  network: 'text',
  network_error_code: 'text',
  network_error_category: 'text',
  retry_advice: 'text',
  advice_scope: 'text',
};

const UPSERT_PAYMENT = newerWinsUpsert(
  'payments',
  PAYMENT_COLUMNS,
  {
    groups: [
      {
        key: ['updated_at', 'event_row_id'],
        columns: [
          'account_id',
          'account_type',
          'amount',
          'currency',
          'capture_strategy',
          'captured',
          'payment_mode',
          'method_kind',
          'card_brand',
          'expedited',
          'fee_amount',
          'application_fee_amount',
          'amount_refunded',
          'returned',
          'amount_returned',
          'error_code',
          'error_description',
          'checkout_id',
          'payment_method_id',
          'created_at',
          'snapshot',
          'card_last_four',
          'card_expiry',
          'card_key',
          'decline_code',
          'network',
          'network_error_code',
          'network_error_category',
          'retry_advice',
          'advice_scope',
        ],
      },
      { key: ['status_terminal', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
      // The totals of the fee list shown: the snapshot whose fee rows replacePaymentFees stores.
      {
        key: ['fees_updated_at', 'fees_event_row_id'],
        columns: [
          'fees_total',
          'fees_processing',
          'fees_platform',
          'fees_other',
          'fees_configured',
          'fees_explicit',
        ],
      },
    ],
    earliest: ['authorized_at', 'captured_at', 'succeeded_at', 'failed_at', 'canceled_at'],
    // The newest state any webhook brought, whichever snapshot is shown (greatest ignores nulls).
    custom: {
      delivered_updated_at: {
        merge: 'max(delivered_updated_at)',
        update: 'greatest(payments.delivered_updated_at, excluded.delivered_updated_at)',
      },
    },
  },
  'returning id, fees_event_row_id',
);

/**
 * Upserts a batch of payment snapshots. Returns, per payment, the delivery row whose fee list is now the
 * one shown (0: none has shown one yet).
 */
export async function upsertPayments(db: Queryable, rows: PaymentRow[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const result = await runNewerWinsUpsert<PaymentRow, { id: string; fees_event_row_id: number }>(
    db,
    UPSERT_PAYMENT,
    rows,
  );
  return new Map(result.rows.map((row) => [row.id, row.fees_event_row_id]));
}

export type PaymentFeeRow = {
  id: string;
  payment_id: string;
  type: string;
  amount: number;
  remaining_amount: number | null;
  currency: string;
  source_configuration_id: string | null;
  source_fee_type: string | null;
  /** `updated_at` of the payment snapshot the fee came from. */
  snapshot_updated_at: Date;
};

export const PAYMENT_FEE_COLUMNS: ColumnTypes<PaymentFeeRow> = {
  id: 'text',
  payment_id: 'text',
  type: 'text',
  amount: 'bigint',
  remaining_amount: 'bigint',
  currency: 'text',
  source_configuration_id: 'text',
  source_fee_type: 'text',
  snapshot_updated_at: 'timestamptz',
};

const paymentFeeColumns = columnList(PAYMENT_FEE_COLUMNS);

const REPLACE_PAYMENT_FEES_SQL = `with incoming as (
       select * from jsonb_to_recordset($2::jsonb) as r(${recordDefinition(PAYMENT_FEE_COLUMNS)})
     ), removed as (
       delete from payment_fees
        where payment_id = any($1::text[]) and not exists (select from incoming where incoming.id = payment_fees.id)
     )
     insert into payment_fees (${paymentFeeColumns})
     select ${paymentFeeColumns} from incoming order by id
     on conflict (id) do update set ${setFromExcluded(PAYMENT_FEE_COLUMNS)}`;

/**
 * Makes the fee rows of each payment given exactly those of its newest snapshot (fees arrive
 * asynchronously): `fees` holds the rows of all of them, an empty list leaves a payment none.
 */
export async function replacePaymentFees(db: Queryable, paymentIds: string[], fees: PaymentFeeRow[]) {
  if (paymentIds.length === 0) return;
  await db.query(REPLACE_PAYMENT_FEES_SQL, [paymentIds, JSON.stringify(fees)]);
}
