import type { Queryable } from '../db/pool.ts';

/**
 * Folds the deltas the triggers of migration 0036 appended into the kept days, so the close reads one row per
 * day, account key and kind instead of one per projected statement. In one statement, in its own transaction
 * after a batch commits (a fold inside the batch would hold the days' rows locked until then, and workers would
 * wait on each other). One fold at a time: two would each wait on deltas the other has taken. A fold that finds
 * another running does nothing; the next batch's fold takes what it left.
 */
export async function foldMovementDays(db: Queryable): Promise<void> {
  await db.query(
    `with moved as (
       delete from movement_day_deltas
        where (select pg_try_advisory_xact_lock(hashtext('tally:fold-movement-days')))
       returning account_type, account_id, currency, day, kind, amount
     )
     insert into movement_days (account_type, account_id, currency, day, kind, amount)
     select account_type, account_id, currency, day, kind, sum(amount) from moved group by 1, 2, 3, 4, 5
     on conflict (day, account_type, account_id, currency, kind)
     do update set amount = movement_days.amount + excluded.amount`,
  );
}
