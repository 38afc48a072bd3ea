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
