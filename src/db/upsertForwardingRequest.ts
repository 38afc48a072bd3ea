import { newerWinsUpsert } from './newerWins.ts';
import type { Queryable } from './pool.ts';

const SQL = newerWinsUpsert('forwarding_requests', {
  groups: [
    {
      key: ['updated_at', 'event_row_id'],
      columns: [
        'account_id',
        'account_type',
        'payment_method_id',
        'url',
        'http_method',
        'provider',
        'attempted_at',
        'created_at',
        'snapshot',
      ],
    },
    {
      key: ['status_rank', 'status_updated_at', 'status_event_row_id'],
      columns: ['status', 'failure_reason', 'response_status_code', 'response_time_ms'],
    },
  ],
});

/** Upserts a forwarding request snapshot. */
export async function upsertForwardingRequest(db: Queryable, row: Record<string, unknown>): Promise<void> {
  await db.query(SQL, [row]);
}
