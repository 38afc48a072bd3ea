import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { findFirstActivityPeriod } from './activityQueries.ts';
import type { PeriodReport } from './buildPeriodReport.ts';
import { findClosedVersion, listClosedPeriods } from './closeQueries.ts';
import { listMovements } from './movementQueries.ts';
import { listPeriodFindings } from './openItemQueries.ts';
import { storedReport } from './periodService.ts';
import { periodBounds, periodOf, periodsBetween } from './periods.ts';
import { addMovement, sumByKey } from './sumByKey.ts';
import { activityOf, emptyTotals, type KindTotals } from './walk.ts';

/**
 * Every month from the earliest activity to the current one, newest first: its state, and per currency its net
 * (live and test apart; a closed period's as closed) and open items, from one scan of the movements since the
 * first month.
 */
export async function listPeriods(pool: Pool, config: Config, now: Date) {
  const timeZone = config.BUSINESS_TIME_ZONE;
  return withReportSnapshot(pool, async (client) => {
    const first = await findFirstActivityPeriod(client, timeZone, now);
    if (first === null) return [];
    const periods = periodsBetween(first, periodOf(now, timeZone));
    const { from } = periodBounds(first, timeZone);
    const movements = await listMovements(client, from, now, timeZone, 'month');
    const totals = sumByKey(
      movements,
      (row) => `${row.day.slice(0, 7)}\u0000${row.account_type}\u0000${row.currency}`,
      (row) => ({ account_type: row.account_type, currency: row.currency, totals: emptyTotals() }),
      addMovement,
    );
    const closed = new Map((await listClosedPeriods(client)).map((row) => [row.period, row]));
    const rows = [];
    for (const period of periods.toReversed()) {
      const bounds = periodBounds(period, timeZone);
      const findings = await listPeriodFindings(client, period, bounds.from, bounds.to);
      const state = closed.get(period);
      const version = state ? await findClosedVersion(client, period) : null;
      const nets = version ? netsOfStored(storedReport(version)) : netsOf(totals, period);
      const currencies = nets.map((entry) => ({
        ...entry,
        open_items: findings
          .filter((row) => row.status === 'open' && row.currency === entry.currency)
          .reduce((sum, row) => sum + row.findings, 0),
      }));
      rows.push({
        period,
        status: state ? ('closed' as const) : ('open' as const),
        version: state?.version ?? null,
        closed_at: state?.closed_at.toISOString() ?? null,
        closed_by: state?.closed_by ?? null,
        currencies,
      });
    }
    return rows;
  });
}

type Nets = { account_type: string; currency: string; net: number }[];

function netsOf(
  totals: Map<string, { account_type: string; currency: string; totals: KindTotals }>,
  period: string,
): Nets {
  return [...totals.entries()]
    .filter(([key]) => key.startsWith(`${period}\u0000`))
    .map(([, entry]) => ({
      account_type: entry.account_type,
      currency: entry.currency,
      net: activityOf(entry.totals).net,
    }));
}

/** A closed period's net per mode and currency, summed over its stored accounts. */
function netsOfStored(report: PeriodReport): Nets {
  const sums = sumByKey(
    report.accounts,
    (row) => `${row.account_type}\u0000${row.currency}`,
    (row): Nets[number] => ({ account_type: row.account_type, currency: row.currency, net: 0 }),
    (entry, row) => {
      entry.net += row.activity.net;
    },
  );
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, entry]) => entry);
}
