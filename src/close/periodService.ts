import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { buildPeriodReport, type PeriodReport } from './buildPeriodReport.ts';
import { findFirstActivityPeriod, PERIOD, periodOf } from './periods.ts';

export class PeriodError extends Error {}

/** Checks a period named from outside: `YYYY-MM`, not before the earliest activity, not after this month. */
export async function checkPeriod(pool: Pool, period: string, config: Config, now: Date): Promise<string> {
  if (!PERIOD.test(period))
    throw new PeriodError(`period: must be a month as YYYY-MM, got "${period.slice(0, 20)}"`);
  const first = await findFirstActivityPeriod(pool, config.BUSINESS_TIME_ZONE);
  if (first === null || period < first)
    throw new PeriodError(
      `period: ${period} is before the earliest activity Tally holds (${first ?? 'none'})`,
    );
  if (period > periodOf(now, config.BUSINESS_TIME_ZONE))
    throw new PeriodError(`period: ${period} has not started`);
  return period;
}

/** The close report of a period as Tally's numbers now say (month to date for the current month). */
export async function currentPeriodReport(
  pool: Pool,
  period: string,
  config: Config,
  now: Date,
): Promise<PeriodReport> {
  return withReportSnapshot(pool, (client) =>
    buildPeriodReport(client, period, config.BUSINESS_TIME_ZONE, now, null),
  );
}
