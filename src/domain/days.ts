/** One UTC day in milliseconds (Tally's days are UTC days: reports, retention, deadlines). */
export const DAY_MS = 24 * 3600 * 1000;

/** The UTC days `from` and `to` (YYYY-MM-DD), both included, as a half-open range of instants. */
export function dayRange(from?: string, to?: string): { from?: Date; to?: Date } {
  return {
    from: from ? new Date(`${from}T00:00:00Z`) : undefined,
    to: to ? new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS) : undefined,
  };
}
