import type { Pool } from '../db/pool.ts';

/** Rows numbered per transaction: a run stays short, and a backlog is numbered over several runs. */
const ROWS_PER_RUN = 5_000;

/** Told, on commit, when a run numbered changes: a follower can wake up instead of polling. */
export const CHANGES_SEQUENCED_CHANNEL = 'tally_changes_sequenced';

/**
 * Gives the feed positions (`seq`) to committed changes that have none, in `row_id` order, and returns how
 * many it numbered. One run at a time: a run first locks the sequencer's row, and only then, in a new
 * statement, reads the rows to number, so its snapshot includes every earlier run's commit and every change
 * committed before it. A change still in flight is invisible to it and gets a larger position once
 * committed, so a reader that has seen position c never later finds an unseen change below c.
 */
export async function sequenceChanges(db: Pool): Promise<number> {
  let numbered = 0;
  for (;;) {
    const client = await db.connect();
    let run: number;
    try {
      await client.query('begin');
      const { rows: locked } = await client.query<{ last_seq: number }>(
        'select last_seq from change_sequencer for update',
      );
      const lastSeq = locked[0]?.last_seq ?? 0;
      const { rows } = await client.query<{ numbered: number; last_seq: number | null }>(
        `with pending as (
           select row_id, row_number() over (order by row_id) as n
             from changes where seq is null
            order by row_id
            limit $2::int),
         numbered as (
           update changes c set seq = $1::bigint + p.n from pending p
            where c.row_id = p.row_id
           returning c.seq)
         select count(*)::int as numbered, max(seq) as last_seq from numbered`,
        [lastSeq, ROWS_PER_RUN],
      );
      run = rows[0]?.numbered ?? 0;
      if (run > 0) {
        const last = rows[0]?.last_seq;
        await client.query('update change_sequencer set last_seq = $1::bigint', [last]);
        await client.query('select pg_notify($1::text, $2::text)', [CHANGES_SEQUENCED_CHANNEL, String(last)]);
      }
      await client.query('commit');
      client.release();
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      client.release(true);
      throw err;
    }
    numbered += run;
    if (run < ROWS_PER_RUN) return numbered;
  }
}

/** Whether committed changes wait for a position: a cheap look before taking the sequencer's lock. */
export async function hasUnsequencedChanges(db: Pick<Pool, 'query'>): Promise<boolean> {
  const { rows } = await db.query<{ waiting: boolean }>(
    'select exists (select from changes where seq is null) as waiting',
  );
  return rows[0]?.waiting ?? false;
}
