import type { Queryable } from '../db/pool.ts';
import type { MovementRow } from './movementRules.ts';

/** The whole business days of a range the kept days answer for, and the instants they span. */
export type KeptDays = { rows: MovementRow[]; start: Date | null; end: Date };

type SpanRow = { kept: boolean; first_day: string | null; end_day: string; start: Date | null; end: Date };

/**
 * Sales, their fees, refunds and the fees they returned, from the days kept as money moves (migration 0036:
 * movement_days plus the deltas not folded yet), per account key, business day and kind, for the whole
 * business days between `from` (null: since the first) and `to`; with the instants those days span, so the
 * caller reads the edges from the rows. Refunds without an account key yet are not kept: the caller reads them
 * from the rows too. Null when the days are not kept in `timeZone` (or not complete yet: `release` counts the
 * stored rows, src/close/keepMovementDays.ts), or when the range holds no whole day.
 */
export async function listKeptDays(
  db: Queryable,
  from: Date | null,
  to: Date,
  timeZone: string,
): Promise<KeptDays | null> {
  const { rows: spans } = await db.query<SpanRow>(
    `select z.time_zone is not distinct from $3::text and z.complete as kept, b.first_day::text, b.end_day::text,
            b.first_day::timestamp at time zone $3::text as start, b.end_day::timestamp at time zone $3::text as "end"
       from movement_days_zone z,
            lateral (select ($1::timestamptz at time zone $3::text)::date as from_day,
                            ($2::timestamptz at time zone $3::text)::date as end_day) d,
            lateral (select case when $1::timestamptz is null then null
                                 when d.from_day::timestamp at time zone $3::text = $1::timestamptz then d.from_day
                                 else d.from_day + 1 end as first_day,
                            d.end_day) b`,
    [from, to, timeZone],
  );
  const span = spans[0];
  if (!span?.kept || (span.first_day !== null && span.first_day >= span.end_day)) return null;
  const { rows } = await db.query<MovementRow>(
    `select account_type, account_id, nullif(currency, '') as currency, day::text, kind, null::text as reference,
            sum(amount)::bigint as amount
       from (select account_type, account_id, currency, day, kind, amount from movement_days
              where day >= coalesce($1::date, '-infinity') and day < $2::date
             union all
             select account_type, account_id, currency, day, kind, amount from movement_day_deltas
              where day >= coalesce($1::date, '-infinity') and day < $2::date) s
      group by 1, 2, 3, 4, 5`,
    [span.first_day, span.end_day],
  );
  return {
    rows: rows.map((row) => ({ ...row, amount: Number(row.amount) })),
    start: span.start,
    end: span.end,
  };
}
