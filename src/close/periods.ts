import { businessDate, localMidnight } from '../domain/days.ts';

/** A period is a calendar month, `YYYY-MM`, in BUSINESS_TIME_ZONE. */
export const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

/** A period is open (its numbers as Tally now says) or closed (a stored version, served unchanged). */
export const PERIOD_STATUSES = ['open', 'closed'] as const;
/** What changes a period's state; each is a row of its history. */
export const PERIOD_ACTIONS = ['close', 'reopen'] as const;
export type PeriodAction = (typeof PERIOD_ACTIONS)[number];

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
export function periodBounds(period: string, timeZone: string): { from: Date; to: Date } {
  return {
    from: localMidnight(`${period}-01`, timeZone),
    to: localMidnight(`${nextPeriod(period)}-01`, timeZone),
  };
}
