import type { Queryable } from '../../db/pool.ts';
import type { ColumnTypes } from '../columnTypes.ts';
import { newerWinsUpsert, runNewerWinsUpsert } from '../newerWins.ts';

export type DisputeRow = {
  id: string;
  payment_id: string;
  account_id: string;
  account_type: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  /** A bare date, `2026-02-23`. */
  due_date: string | null;
  status: string | null;
  status_rank: number;
  status_updated_at: Date | '-infinity';
  status_event_row_id: number;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
};

// `row_id` is left out: the table numbers rows itself, for cursor pagination.
export const DISPUTE_COLUMNS: ColumnTypes<DisputeRow> = {
  id: 'text',
  payment_id: 'text',
  account_id: 'text',
  account_type: 'text',
  amount: 'bigint',
  currency: 'text',
  reason: 'text',
  due_date: 'date',
  status: 'text',
  status_rank: 'integer',
  status_updated_at: 'timestamptz',
  status_event_row_id: 'bigint',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  event_row_id: 'bigint',
  snapshot: 'jsonb',
};

const UPSERT_DISPUTE = newerWinsUpsert('disputes', DISPUTE_COLUMNS, {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'payment_id',
        'account_id',
        'account_type',
        'amount',
        'currency',
        'reason',
        'due_date',
        'created_at',
        'snapshot',
      ],
    },
    { key: ['status_rank', 'status_updated_at', 'status_event_row_id'], columns: ['status'] },
  ],
});

/** Upserts a batch of dispute snapshots; newer snapshots win their fields, a higher-ranked status the status. */
export async function upsertDisputes(db: Queryable, rows: DisputeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await runNewerWinsUpsert(db, UPSERT_DISPUTE, rows);
}
