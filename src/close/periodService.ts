import type { Config } from '../config.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { findFirstActivityPeriod } from './activityQueries.ts';
import { buildPeriodReport, keyOf, type PeriodReport, type PriorClose } from './buildPeriodReport.ts';
import { findClosedVersion, findLatestClosedBefore, type PeriodVersionRow } from './closeQueries.ts';
import type { StoredJournal } from './journalFormats.ts';
import { nextPeriod, PERIOD, periodOf } from './periods.ts';

export class PeriodError extends Error {}

/** Why a period named from outside is not `YYYY-MM`, naming it (its first 20 characters). */
export function malformedPeriod(period: string): string {
  return `period: must be a month as YYYY-MM, got "${period.slice(0, 20)}"`;
}

/** Checks a period named from outside: `YYYY-MM`, not before the earliest activity, not after this month. */
export async function checkPeriod(pool: Pool, period: string, config: Config, now: Date): Promise<string> {
  if (!PERIOD.test(period)) throw new PeriodError(malformedPeriod(period));
  const first = await findFirstActivityPeriod(pool, config.BUSINESS_TIME_ZONE, now);
  if (first === null || period < first)
    throw new PeriodError(
      `period: ${period} is before the earliest activity Tally holds (${first ?? 'none'})`,
    );
  if (period > periodOf(now, config.BUSINESS_TIME_ZONE))
    throw new PeriodError(`period: ${period} has not started`);
  return period;
}

/** The stored report of a closed version. */
export const storedReport = (version: PeriodVersionRow) => JSON.parse(version.report) as PeriodReport;

/**
 * The closed periods' word on `period`, when it is the first open period after the latest closed one: that
 * period's held_end per account and what the closed periods booked, against which it books adjustments.
 */
export async function findPriorClose(db: Queryable, period: string): Promise<PriorClose | null> {
  const latest = await findLatestClosedBefore(db, period);
  if (latest === null || nextPeriod(latest.period) !== period) return null;
  return {
    period: latest.period,
    heldEnd: new Map(storedReport(latest).accounts.map((row) => [keyOf(row), row.walk.held_end])),
    booked: latest.booked,
  };
}

/** The close report of a period as Tally's numbers now say (month to date for the current month). */
export async function currentPeriodReport(
  pool: Pool,
  period: string,
  config: Config,
  now: Date,
): Promise<PeriodReport> {
  return withReportSnapshot(pool, async (client, alongside) =>
    buildPeriodReport(
      client,
      period,
      config.BUSINESS_TIME_ZONE,
      now,
      await findPriorClose(client, period),
      alongside,
    ),
  );
}

export type ServedPeriod =
  | { status: 'open'; report: PeriodReport; reportText: string; closed: null }
  | {
      status: 'closed';
      report: PeriodReport;
      reportText: string;
      closed: PeriodVersionRow;
      journal: StoredJournal;
    };

/** A closed period's stored version exactly as it was closed, or an open one's report as Tally now says. */
export async function servePeriod(
  pool: Pool,
  period: string,
  config: Config,
  now: Date,
): Promise<ServedPeriod> {
  const closed = await findClosedVersion(pool, period);
  if (closed)
    return {
      status: 'closed',
      report: storedReport(closed),
      reportText: closed.report,
      closed,
      journal: JSON.parse(closed.journal) as StoredJournal,
    };
  const report = await currentPeriodReport(pool, period, config, now);
  return { status: 'open', report, reportText: JSON.stringify(report, null, 2), closed: null };
}

/** A period named from outside, checked (a PeriodError naming `period` when it is not one to serve), and served. */
export async function serveNamedPeriod(
  pools: { pool: Pool; readPool: Pool },
  period: string,
  config: Config,
  now: Date,
): Promise<ServedPeriod> {
  return servePeriod(pools.readPool, await checkPeriod(pools.pool, period, config, now), config, now);
}
