import type { Queryable } from '../db/pool.ts';
import { businessDate } from '../domain/days.ts';

/** A period is a calendar month, `YYYY-MM`, in BUSINESS_TIME_ZONE. */
export const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

export function nextPeriod(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
}

export function previousPeriod(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}

/** The period an instant falls in, in `timeZone`. */
export const periodOf = (instant: Date, timeZone: string) => businessDate(instant, timeZone).slice(0, 7);

/** Every period from `first` to `last`, both included, oldest first. */
export function periodsBetween(first: string, last: string): string[] {
  const periods: string[] = [];
  for (let period = first; period <= last; period = nextPeriod(period)) periods.push(period);
  return periods;
}

/** The instants a period starts and ends at: midnight of its first day and of the next month's, in `timeZone`. */
export async function periodBounds(
  db: Queryable,
  period: string,
  timeZone: string,
): Promise<{ from: Date; to: Date }> {
  const { rows } = await db.query<{ from: Date; to: Date }>(
    `select ($1::date)::timestamp at time zone $2::text as "from",
            ($1::date + interval '1 month')::timestamp at time zone $2::text as "to"`,
    [`${period}-01`, timeZone],
  );
  return rows[0] as { from: Date; to: Date };
}
