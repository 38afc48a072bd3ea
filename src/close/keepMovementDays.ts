import { type Pool, withTransaction } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

const PAYMENT_KINDS = `('sale', 'fee_processing', 'fee_platform', 'fee_other')`;
const REFUND_KINDS = `('refund', 'fee_returned_processing', 'fee_returned_platform', 'fee_returned_other')`;

// What the rows say in this statement's snapshot, less what the kept days already hold in it, appended as a
// delta: the kept days then count every row, and a change committed after the snapshot brings its own delta.
const countStored = (rows: string, movements: string, kinds: string) =>
  `insert into movement_day_deltas
   select account_type, account_id, currency, day, kind, sum(amount)
     from (select m.* from ${rows} cross join lateral ${movements} m
           union all
           select account_type, account_id, currency, day, kind, -amount from movement_days where kind in ${kinds}
           union all
           select account_type, account_id, currency, day, kind, -amount from movement_day_deltas
            where kind in ${kinds}) c
    group by 1, 2, 3, 4, 5
   having sum(amount) <> 0`;

/**
 * Makes the close's kept days (migration 0036) those of `timeZone`, and counts the rows stored before: `release`
 * runs it with BUSINESS_TIME_ZONE (docs/decisions/0021-movement-days.md). A change of zone empties them first,
 * while no write to payments, refunds or returned fees is in flight (a share lock, held for the moment it takes
 * to empty them), so no delta of the old zone's days commits after. The counting is a read: the worker goes on
 * projecting. Two runs at once count once: the second finds the zone complete.
 */
export async function keepMovementDaysIn(pool: Pool, timeZone: string, log: Logger): Promise<void> {
  const { rows } = await pool.query<{ time_zone: string | null }>('select time_zone from movement_days_zone');
  if (rows[0]?.time_zone !== timeZone) {
    await withTransaction(pool, async (client) => {
      await client.query(`set local lock_timeout = '5s'`);
      await client.query('lock table payments, refunds, returned_fees in share mode');
      await client.query('update movement_days_zone set time_zone = $1, complete = false', [timeZone]);
      await client.query('delete from movement_days');
      await client.query('delete from movement_day_deltas');
    });
    log.info(
      { timeZone, was: rows[0]?.time_zone ?? null },
      'the close’s days are kept in a new zone: emptied',
    );
  }
  await withTransaction(pool, async (client) => {
    const claimed = await client.query(
      'update movement_days_zone set complete = true where time_zone = $1 and not complete',
      [timeZone],
    );
    if (claimed.rowCount === 0) return;
    log.info({ timeZone }, 'counting the stored payments and refunds into the close’s days');
    await client.query(countStored('payments p', 'payment_movements(p, $1::text)', PAYMENT_KINDS), [
      timeZone,
    ]);
    await client.query(countStored('refunds r', 'refund_movements(r, $1::text)', REFUND_KINDS), [timeZone]);
    log.info({ timeZone }, 'the close’s days count every stored payment and refund');
  });
}
