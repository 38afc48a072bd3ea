import type { Queryable } from '../db/pool.ts';
import type { UnknownValue } from './unknownValues.ts';

export type UnknownValueSeen = UnknownValue & { receivedAt: Date };

/**
 * Adds one delivery per value seen to `unknown_values`, in one statement for a whole batch. Times are the
 * deliveries' own, so a rebuild from the raw log gives the same rows.
 */
export async function countUnknownValues(db: Queryable, values: UnknownValueSeen[]): Promise<void> {
  if (values.length === 0) return;
  await db.query(
    `insert into unknown_values (field, value, deliveries, first_seen_at, last_seen_at)
     select field, value, count(*), min(received_at), max(received_at)
       from unnest($1::text[], $2::text[], $3::timestamptz[]) as v(field, value, received_at)
      group by field, value
      order by field, value
     on conflict (field, value) do update set
       deliveries = unknown_values.deliveries + excluded.deliveries,
       first_seen_at = least(unknown_values.first_seen_at, excluded.first_seen_at),
       last_seen_at = greatest(unknown_values.last_seen_at, excluded.last_seen_at)`,
    [
      values.map((value) => value.field),
      values.map((value) => value.value),
      values.map((value) => value.receivedAt),
    ],
  );
}

export const PROJECTION_TABLES = [
  'payments',
  'payment_fees',
  'refunds',
  'returned_fees',
  'checkouts',
  'forwarding_requests',
  'forwarding_outcomes',
  'disputes',
  'payouts',
  'payout_lines',
  'payout_line_counts',
  'unknown_values',
  'payment_declines',
] as const;

/**
 * Empties every projection and queues every non-quarantined delivery to be processed again, except those whose
 * body retention purged: they cannot be replayed, and stay as they were. A delivery the previous release kept
 * a status for (received, processed, failed) takes this release's form (`stored`, its wait in `event_queue`);
 * its failure, if any, is forgotten with the projections.
 */
export async function resetProjections(db: Queryable): Promise<void> {
  await db.query(`truncate ${PROJECTION_TABLES.join(', ')}, event_failures, processed_events`);
  await db.query(
    `update events set status = 'stored', processed_at = null, error = null, attempts = 0, retry_at = null
      where status in ('received', 'processed', 'failed') and body_purged_at is null`,
  );
  // Shared row locks: a retention purge skips the rows this transaction queues, and one it purged first is
  // seen purged here, so no queued delivery loses its body.
  await db.query(
    `insert into event_queue (id)
     select id from events where status = 'stored' and body_purged_at is null for share
     on conflict do nothing`,
  );
}
