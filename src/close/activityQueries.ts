import type { Queryable } from '../db/pool.ts';
import { SUCCEEDED_REFUND } from '../reports/dailyPaymentQueries.ts';
import { CAPTURE_WINDOW, MANUAL_CAPTURE, MANUAL_SUCCEEDED_AT, SUCCEEDED_PAYMENT } from './movementRules.ts';
import { nextPeriod, periodBounds, periodOf } from './periods.ts';

/**
 * One kind of activity (docs/month-end.md, "Closing a month"): the rows that are that activity (`rows` ends in a
 * where clause), the instant each counts at, as "When each item counts" dates it, and how an index finds them:
 * `inRange` selects the rows dated in [$1, $2) through an indexed column, and `lowerBound` is an aggregate an
 * index serves, no later than the earliest `at` (it starts the search for the earliest activity).
 */
type Activity = { rows: string; at: string; inRange?: string; lowerBound?: string };

// $3 is the business time zone wherever a date is turned into an instant.
const ACTIVITIES: Activity[] = [
  { rows: `payments p where ${SUCCEEDED_PAYMENT} and (${MANUAL_CAPTURE}) is not true`, at: 'p.created_at' },
  {
    rows: `refunds r where r.status in ${SUCCEEDED_REFUND} and r.created_at is not null`,
    at: 'r.created_at',
  },
  { rows: 'payouts o where true', at: 'o.created_at' },
  { rows: 'disputes d where d.amount is not null', at: 'd.created_at' },
  {
    rows: `payments p where p.status = 'failed' and (p.succeeded_at is not null or p.returned is true)`,
    at: 'p.failed_at',
  },
  {
    rows: `payments p where ${SUCCEEDED_PAYMENT} and ${MANUAL_CAPTURE}`,
    at: MANUAL_SUCCEEDED_AT,
    // A manual capture succeeds within its 7-day authorization: it was created at most that long before.
    inRange: `p.created_at >= $1::timestamptz - ${CAPTURE_WINDOW} and p.created_at < $2::timestamptz`,
    lowerBound: 'min(p.created_at)',
  },
  { rows: `refunds r where r.status in ${SUCCEEDED_REFUND} and r.created_at is null`, at: 'r.updated_at' },
  { rows: `disputes d where d.status = 'won' and d.amount is not null`, at: 'd.status_updated_at' },
  { rows: `payouts o where o.status in ('failed', 'canceled')`, at: 'o.updated_at' },
  {
    rows: 'bank_lines b where b.payout_id is not null',
    at: `(b.value_date::timestamp at time zone $3::text)`,
    inRange: `b.value_date >= ($1::timestamptz at time zone $3::text)::date
              and b.value_date < ($2::timestamptz at time zone $3::text)::date`,
    lowerBound: `(min(b.value_date)::timestamp at time zone $3::text)`,
  },
];

// The most common kinds come first: `or` stops at the first that finds a row.
const ACTIVITY_IN_RANGE = ACTIVITIES.map(
  ({ rows, at, inRange }) =>
    `exists (select 1 from ${rows} and ${at} >= $1::timestamptz and ${at} < $2::timestamptz${inRange ? ` and ${inRange}` : ''})`,
).join('\n or ');

/** Whether anything was sold, refunded, disputed, returned, paid out, reversed or credited in [from, to). */
export async function hasActivity(db: Queryable, from: Date, to: Date, timeZone: string): Promise<boolean> {
  const { rows } = await db.query<{ active: boolean }>(`select ${ACTIVITY_IN_RANGE} as active`, [
    from,
    to,
    timeZone,
  ]);
  return rows[0]?.active === true;
}

/**
 * The period of the earliest activity Tally holds (by its own date, however late it arrived), or null with
 * none: from the month of the smallest index-served lower bound, the first month with activity.
 */
export async function findFirstActivityPeriod(
  db: Queryable,
  timeZone: string,
  now: Date,
): Promise<string | null> {
  const lowerBounds = ACTIVITIES.map(
    ({ rows, at, lowerBound }) =>
      `(select ${(lowerBound ?? `min(${at})`).replaceAll('$3', '$1')} from ${rows})`,
  );
  const { rows } = await db.query<{ first: Date | null }>(
    `select least(${lowerBounds.join(', ')}) as first`,
    [timeZone],
  );
  const first = rows[0]?.first;
  if (!first) return null;
  for (
    let period = periodOf(first, timeZone);
    period <= periodOf(now, timeZone);
    period = nextPeriod(period)
  ) {
    const { from, to } = periodBounds(period, timeZone);
    if (await hasActivity(db, from, to, timeZone)) return period;
  }
  return null;
}
