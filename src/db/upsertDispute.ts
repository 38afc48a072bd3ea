import { newerWinsUpsert } from './newerWins.ts';
import type { Queryable } from './pool.ts';

export type DisputeRow = {
  id: string;
  payment_id: string;
  account_id: string;
  account_type: string;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  due_date: string | null;
  status: string | null;
  status_rank: number;
  status_updated_at: Date | string;
  status_event_row_id: number;
  created_at: Date | null;
  updated_at: Date;
  event_row_id: number;
  snapshot: unknown;
};

const SQL = newerWinsUpsert('disputes', {
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

/** Upserts a dispute snapshot; newer snapshots win their fields, a higher-ranked status wins the status. */
export async function upsertDispute(db: Queryable, row: DisputeRow): Promise<void> {
  await db.query(SQL, [row]);
}
