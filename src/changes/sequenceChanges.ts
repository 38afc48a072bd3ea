import type { Pool } from '../db/pool.ts';
import { withTransaction } from '../db/pool.ts';

/**
 * Gives feed positions to the changes committed since the last run, in insertion order, one sequencer at a
 * time: positions are taken only by committed rows, so a reader never later finds one below what it has
 * seen. Returns how many it numbered.
 */
export async function sequenceChanges(db: Pool): Promise<number> {
  return withTransaction(db, async (client) => {
    await client.query('select last_seq from change_sequencer for update');
    // A new statement, after the lock: it sees every row committed before the lock was granted.
    const { rows } = await client.query<{ numbered: number }>(
      `with numbered as (
         select row_id, row_number() over (order by row_id) as n from changes where seq is null
       ), given as (
         update changes c set seq = s.last_seq + numbered.n
           from numbered, change_sequencer s
          where c.row_id = numbered.row_id
         returning 1
       )
       update change_sequencer set last_seq = last_seq + (select count(*) from given)
       returning (select count(*) from given)::int as numbered`,
    );
    return rows[0]?.numbered ?? 0;
  });
}
