import type { Pool } from '../db/pool.ts';

// Rows removed per transaction: each batch is short, so the sequencer and readers never wait long on it.
const ROWS_PER_BATCH = 5_000;

/**
 * Removes numbered changes recorded before `cutoff`, oldest first, in batches, and moves `purged_through` to the
 * last position removed, so a cursor below it is answered 410. Unnumbered changes stay whatever their age.
 * Returns how many were removed.
 */
export async function purgeChanges(pool: Pool, cutoff: Date): Promise<number> {
  // The last position recorded before the cutoff: everything up to it goes, so what stays is one range.
  const { rows: bound } = await pool.query<{ through: number | null }>(
    'select max(seq) as through from changes where seq is not null and recorded_at < $1::timestamptz',
    [cutoff],
  );
  const through = bound[0]?.through ?? null;
  if (through === null) return 0;
  let removed = 0;
  for (;;) {
    const { rows } = await pool.query<{ removed: number }>(
      `with batch as (
         select seq from changes
          where seq > (select purged_through from change_sequencer) and seq <= $1::bigint
          order by seq
          limit $2::int),
       removed as (delete from changes c using batch where c.seq = batch.seq returning c.seq),
       moved as (
         update change_sequencer set purged_through = greatest(purged_through, (select max(seq) from removed))
          where exists (select from removed))
       select count(*)::int as removed from removed`,
      [through, ROWS_PER_BATCH],
    );
    const batch = rows[0]?.removed ?? 0;
    removed += batch;
    if (batch < ROWS_PER_BATCH) return removed;
  }
}
