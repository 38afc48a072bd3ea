import type { Queryable } from '../db/pool.ts';

export type SweepSummary = {
  lastSweepAt: Date | null;
  lastSweepSeconds: number | null;
  missedEventsOpen: number;
  /** Objects the sweeps listed, by outcome, summed over every run: the `tally_sweep_objects_total` counter. */
  objects: { listed: number; new: number; newer: number; unchanged: number; missed: number };
};

/**
 * The missed-event sweep as people and Prometheus see it. The count of open `event_missed` findings (a table
 * src/findings owns) is read in the same statement: those are what the sweeps found and nobody has closed.
 */
export async function summarizeSweeps(db: Queryable): Promise<SweepSummary> {
  const { rows } = await db.query<{
    last_sweep_at: Date | null;
    last_sweep_seconds: number | null;
    missed_events_open: number;
    listed: number;
    new: number;
    newer: number;
    unchanged: number;
    missed: number;
  }>(
    `select (select max(finished_at) from sweep_runs where status = 'completed' and kind = 'sweep') as last_sweep_at,
            (select extract(epoch from finished_at - started_at)::float8 from sweep_runs
              where status = 'completed' and kind = 'sweep' order by finished_at desc limit 1) as last_sweep_seconds,
            (select count(*)::int from findings where code = 'event_missed' and status in ('open', 'acknowledged')) as missed_events_open,
            coalesce(sum(listed), 0)::bigint as listed, coalesce(sum(new), 0)::bigint as new,
            coalesce(sum(newer), 0)::bigint as newer, coalesce(sum(unchanged), 0)::bigint as unchanged,
            coalesce(sum(missed), 0)::bigint as missed
       from sweep_runs`,
  );
  const row = rows[0];
  return {
    lastSweepAt: row?.last_sweep_at ?? null,
    lastSweepSeconds: row?.last_sweep_seconds ?? null,
    missedEventsOpen: row?.missed_events_open ?? 0,
    objects: {
      listed: row?.listed ?? 0,
      new: row?.new ?? 0,
      newer: row?.newer ?? 0,
      unchanged: row?.unchanged ?? 0,
      missed: row?.missed ?? 0,
    },
  };
}
