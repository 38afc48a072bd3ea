import type { Queryable } from '../../db/pool.ts';
import type { ColumnTypes } from '../columnTypes.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';

export type PayoutRow = {
  id: string;
  account_id: string;
  amount: number;
  currency: string;
  status: string;
  payout_type: string | null;
  delivery_method: string | null;
  description: string | null;
  deposits_at: Date | null;
  payments_count: number | null;
  payments_total: number | null;
  refunds_count: number | null;
  refunds_total: number | null;
  fees_total: number | null;
  other_total: number | null;
  bank_account: unknown;
  metadata: unknown;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
  /** When the shown snapshot's delivery was received: a rebuild from the raw log gives the same value. */
  projected_at: Date;
};

export const PAYOUT_COLUMNS: ColumnTypes<PayoutRow> = {
  id: 'text',
  account_id: 'text',
  amount: 'bigint',
  currency: 'text',
  status: 'text',
  payout_type: 'text',
  delivery_method: 'text',
  description: 'text',
  deposits_at: 'timestamptz',
  payments_count: 'integer',
  payments_total: 'bigint',
  refunds_count: 'integer',
  refunds_total: 'bigint',
  fees_total: 'bigint',
  other_total: 'bigint',
  bank_account: 'jsonb',
  metadata: 'jsonb',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  event_row_id: 'bigint',
  snapshot: 'jsonb',
  projected_at: 'timestamptz',
};

// `line_count` and `lines_complete` are not written here: `refreshLineCompleteness` derives them.
const UPSERT_PAYOUTS = newerWinsUpsert('payouts', PAYOUT_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'amount',
        'currency',
        'status',
        'payout_type',
        'delivery_method',
        'description',
        'deposits_at',
        'payments_count',
        'payments_total',
        'refunds_count',
        'refunds_total',
        'fees_total',
        'other_total',
        'bank_account',
        'metadata',
        'created_at',
        'snapshot',
        'projected_at',
      ],
    },
  ],
});

export type PayoutLineRow = {
  id: string;
  payout_id: string;
  account_id: string;
  txn_type: string;
  kind: 'payment' | 'refund' | 'fee' | 'fee_return' | 'payout' | 'other';
  amount: number;
  fee: number;
  net: number;
  currency: string;
  source_id: string | null;
  source_type: string | null;
  source_payment_id: string | null;
  financial_transaction_id: string | null;
  description: string | null;
  available_on: Date | null;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
  projected_at: Date;
};

export const PAYOUT_LINE_COLUMNS: ColumnTypes<PayoutLineRow> = {
  id: 'text',
  payout_id: 'text',
  account_id: 'text',
  txn_type: 'text',
  kind: 'text',
  amount: 'bigint',
  fee: 'bigint',
  net: 'bigint',
  currency: 'text',
  source_id: 'text',
  source_type: 'text',
  source_payment_id: 'text',
  financial_transaction_id: 'text',
  description: 'text',
  available_on: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  event_row_id: 'bigint',
  snapshot: 'jsonb',
  projected_at: 'timestamptz',
};

const UPSERT_PAYOUT_LINES = newerWinsUpsert('payout_lines', PAYOUT_LINE_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'payout_id',
        'account_id',
        'txn_type',
        'kind',
        'amount',
        'fee',
        'net',
        'currency',
        'source_id',
        'source_type',
        'source_payment_id',
        'financial_transaction_id',
        'description',
        'available_on',
        'created_at',
        'snapshot',
        'projected_at',
      ],
    },
  ],
});

export type PayoutLineCountRow = { payout_id: string; line_count: number; event_row_id: number };

// Newer wins by delivery alone: a marker has no time of its own, and a later one counted a later listing.
const UPSERT_PAYOUT_LINE_COUNTS_SQL = `insert into payout_line_counts (payout_id, line_count, event_row_id)
     select payout_id, (array_agg(line_count order by event_row_id desc))[1], max(event_row_id)
       from jsonb_to_recordset($1::jsonb) as r(payout_id text, line_count integer, event_row_id bigint)
      group by payout_id
      order by payout_id
     on conflict (payout_id) do update set line_count = excluded.line_count, event_row_id = excluded.event_row_id
      where excluded.event_row_id > payout_line_counts.event_row_id`;

/**
 * Serializes the projection of each payout across workers (in id order, so two batches never deadlock):
 * without it, a worker projecting a payout's last lines and another projecting its line count would each
 * count without the other's rows, and neither would mark the lines complete.
 */
export async function lockPayouts(db: Queryable, payoutIds: string[]): Promise<void> {
  if (payoutIds.length === 0) return;
  await db.query(
    `select pg_advisory_xact_lock(hashtextextended('payout:' || id, 0))
       from (select distinct unnest($1::text[]) as id order by 1) ids`,
    [payoutIds],
  );
}

/** Upserts a batch of payout snapshots: the newest state (by `updated_at`, then delivery) is shown. */
export async function upsertPayouts(db: Queryable, rows: PayoutRow[]): Promise<void> {
  if (rows.length === 0) return;
  await runNewerWinsUpsert(db, UPSERT_PAYOUTS, rows);
}

/** Upserts a batch of payout lines (balance transaction snapshots), newest state of each shown. */
export async function upsertPayoutLines(db: Queryable, rows: PayoutLineRow[]): Promise<void> {
  if (rows.length === 0) return;
  await runNewerWinsUpsert(db, UPSERT_PAYOUT_LINES, rows);
}

/** Upserts the sync's line counts per payout; the newest marker stored wins. */
export async function upsertPayoutLineCounts(db: Queryable, rows: PayoutLineCountRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(UPSERT_PAYOUT_LINE_COUNTS_SQL, [JSON.stringify(rows)]);
}

/**
 * Sets each payout's `line_count` from its marker and `lines_complete` when that many lines are projected,
 * whichever of the payout, its lines and its marker arrived last.
 */
export async function refreshLineCompleteness(db: Queryable, payoutIds: string[]): Promise<void> {
  if (payoutIds.length === 0) return;
  await db.query(
    `with counted as (
       select p.id, c.line_count,
              (select count(*) from payout_lines l where l.payout_id = p.id) as projected
         from payouts p left join payout_line_counts c on c.payout_id = p.id
        where p.id = any($1::text[])
     )
     update payouts p
        set line_count = counted.line_count,
            lines_complete = coalesce(counted.line_count = counted.projected, false)
       from counted
      where p.id = counted.id
        and (p.line_count is distinct from counted.line_count
             or p.lines_complete is distinct from coalesce(counted.line_count = counted.projected, false))`,
    [payoutIds],
  );
}
