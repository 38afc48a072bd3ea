/** One UTC day in milliseconds (retention and deadlines count UTC days; reports count business days). */
export const DAY_MS = 24 * 3600 * 1000;

/** The UTC days `from` and `to` (YYYY-MM-DD), both included, as a half-open range of instants. */
export function dayRange(from?: string, to?: string): { from?: Date; to?: Date } {
  return {
    from: from ? new Date(`${from}T00:00:00Z`) : undefined,
    to: to ? new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS) : undefined,
  };
}

/** True when `timeZone` is an IANA name this runtime knows (`UTC`, `America/New_York`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day (YYYY-MM-DD) an instant falls on in `timeZone`. */
export function businessDate(instant: Date, timeZone: string): string {
  return dateFormatOf(timeZone).format(instant);
}

// Building a formatter costs far more than formatting with one; reports date thousands of instants.
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormatOf(timeZone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timeZone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** A calendar day moved by whole days (no time zone involved: calendar arithmetic on the date). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

const HOUR_MS = 3600 * 1000;
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds (whole seconds). */
export function utcOffsetAt(instant: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormats.set(timeZone, format);
  }
  const part = Object.fromEntries(
    format.formatToParts(instant).map(({ type, value }) => [type, value]),
  ) as Record<Intl.DateTimeFormatPartTypes, string>;
  const wall = new Date(0);
  wall.setUTCFullYear(Number(part.year), Number(part.month) - 1, Number(part.day));
  wall.setUTCHours(Number(part.hour), Number(part.minute), Number(part.second));
  return wall.getTime() - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * The instant a day (YYYY-MM-DD) starts at in `timeZone`, as Postgres's `date::timestamp at time zone` gives it.
 * The offsets in force a day either side are the candidates; of those that read back as midnight, the later
 * instant wins (a midnight that happens twice, after a fall-back); when none does (a clock that springs over
 * midnight), the offset from before the change applies, which is again the later instant.
 */
export function localMidnight(day: string, timeZone: string): Date {
  const wall = Date.parse(`${day}T00:00:00Z`);
  const offsets = new Set([-24, 0, 24].map((hours) => utcOffsetAt(wall + hours * HOUR_MS, timeZone)));
  const candidates = [...offsets].map((offset) => ({ at: wall - offset, offset }));
  const exact = candidates.filter(({ at, offset }) => utcOffsetAt(at, timeZone) === offset);
  return new Date(Math.max(...(exact.length > 0 ? exact : candidates).map(({ at }) => at)));
}
