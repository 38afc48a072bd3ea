import type { Queryable } from '../../db/pool.ts';
import type { ColumnTypes } from '../columnTypes.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';
import type { CheckoutFee } from './checkoutSnapshot.ts';

export type CheckoutRow = {
  id: string;
  account_id: string;
  account_type: string;
  amount: number | null;
  description: string | null;
  payment_amount: number | null;
  currency: string | null;
  status: string;
  status_rank: number;
  status_updated_at: Date;
  status_event_row_id: number;
  fees: CheckoutFee[] | null;
  payment_id: string | null;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
};

/**
 * What a completion (`chc_`) says about its checkout: the status and the payment. It says nothing about the
 * checkout's own fields, so it never wins them (`updated_at` is `-infinity`) and leaves out their keys: a
 * completion that arrives before its checkout creates the row with them null.
 */
export type CheckoutCompletionRow = Pick<
  CheckoutRow,
  | 'id'
  | 'account_id'
  | 'account_type'
  | 'status'
  | 'status_rank'
  | 'status_updated_at'
  | 'status_event_row_id'
  | 'payment_id'
  | 'event_row_id'
> & { updated_at: '-infinity'; snapshot: Record<string, never> };

export const CHECKOUT_COLUMNS: ColumnTypes<CheckoutRow> = {
  id: 'text',
  account_id: 'text',
  account_type: 'text',
  amount: 'bigint',
  description: 'text',
  payment_amount: 'bigint',
  currency: 'text',
  status: 'text',
  status_rank: 'integer',
  status_updated_at: 'timestamptz',
  status_event_row_id: 'bigint',
  fees: 'jsonb',
  payment_id: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  event_row_id: 'bigint',
  snapshot: 'jsonb',
};

const UPSERT_CHECKOUT = newerWinsUpsert('checkouts', CHECKOUT_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'amount',
        'description',
        'payment_amount',
        'currency',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_rank', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
  ],
  // Set by whichever events name them: fees by the checkout, the payment by its completion. An event
  // without them never clears them; the newest snapshot that has fees decides them, and the least payment
  // id named wins.
  custom: {
    fees: {
      merge:
        '(array_agg(fees order by updated_at desc, event_row_id desc) filter (where fees is not null))[1]',
      update:
        'case when excluded.fees is not null and (checkouts.fees is null or (excluded.updated_at, excluded.event_row_id) > (checkouts.updated_at, checkouts.event_row_id)) then excluded.fees else checkouts.fees end',
    },
    payment_id: {
      merge: 'min(payment_id)',
      update:
        'coalesce(least(checkouts.payment_id, excluded.payment_id), checkouts.payment_id, excluded.payment_id)',
    },
  },
});

/** Upserts what a batch of checkout events and completion events says about their checkouts. */
export async function upsertCheckouts(
  db: Queryable,
  rows: (CheckoutRow | CheckoutCompletionRow)[],
): Promise<void> {
  if (rows.length === 0) return;
  await runNewerWinsUpsert(db, UPSERT_CHECKOUT, rows);
}

/** Payments linked to the checkouts from either side: a checkout's own link, or a payment naming it. */
export async function listPaymentsOfCheckouts(db: Queryable, checkoutIds: string[]): Promise<string[]> {
  if (checkoutIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `select payment_id as id from checkouts where id = any($1::text[]) and payment_id is not null
     union select id from payments where checkout_id = any($1::text[])`,
    [checkoutIds],
  );
  return rows.map((row) => row.id);
}
