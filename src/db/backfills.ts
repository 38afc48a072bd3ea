import type { Backfill } from './backfill.ts';

/**
 * Moves the deliveries the previous release left waiting (`received`) into `event_queue`, and its failed ones
 * (attempts, error and retry time kept) into `event_failures`, marking each row `stored` (migration 0028).
 * A row that release's worker holds is waited for and then seen processed, so it is left alone; one this
 * batch holds, that worker's claim skips, and once moved it no longer claims it. Rows its web stores after the
 * walk has passed them are claimed by this release's worker on the row, as before, until that web is gone.
 */
const MOVE_WAITING_DELIVERIES: Backfill = {
  name: 'move-waiting-deliveries-to-event-queue',
  table: 'events',
  key: 'id',
  keyType: 'bigint',
  update: `with before as (
             select id, status, attempts, error, retry_at from events
              where id between $1::bigint and $2::bigint and status in ('received', 'failed')
                for update),
           moved as (update events e set status = 'stored' from before b where e.id = b.id returning e.id),
           queued as (insert into event_queue (id) select id from before where status = 'received'
                      on conflict do nothing),
           failed as (insert into event_failures (id, attempts, error, retry_at, failed_at)
                      select id, attempts, coalesce(error, ''), retry_at, now() from before where status = 'failed'
                      on conflict do nothing)
           select id from moved`,
  batchSize: 5000,
};

/**
 * The backfills `release` runs, in order, after the migrations. A backfill ships in the release whose
 * migration added the columns it fills, and the code of that release already writes them for new rows
 * (docs/operations.md, "Upgrading and migrations"). A finished backfill stays listed: it is skipped.
 */
export const BACKFILLS: readonly Backfill[] = [MOVE_WAITING_DELIVERIES];
