import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { MOVEMENTS } from './movementKinds.ts';
import { listMovements } from './movementQueries.ts';
import { listPeriodFindings } from './openItemQueries.ts';
import { findFirstActivityPeriod, periodBounds, periodOf, periodsBetween } from './periods.ts';
import { activityOf, emptyTotals, type KindTotals } from './walk.ts';

export type PeriodState = {
  status: 'open' | 'closed';
  version: number | null;
  closed_at: Date | null;
  closed_by: string | null;
};

/**
 * Every month from the earliest activity to the current one, newest first: its state, and per currency its net
 * (live and test apart) and open items, from one scan of the movements since the first month.
 */
export async function listPeriods(
  pool: Pool,
  config: Config,
  now: Date,
  stateOf: (period: string) => PeriodState,
) {
  const timeZone = config.BUSINESS_TIME_ZONE;
  return withReportSnapshot(pool, async (client) => {
    const first = await findFirstActivityPeriod(client, timeZone);
    if (first === null) return [];
    const periods = periodsBetween(first, periodOf(now, timeZone));
    const { from } = await periodBounds(client, first, timeZone);
    const movements = await listMovements(client, from, now, timeZone);
    const totals = new Map<string, { account_type: string; currency: string; totals: KindTotals }>();
    for (const row of movements) {
      const key = `${row.day.slice(0, 7)}\u0000${row.account_type}\u0000${row.currency}`;
      const entry = totals.get(key) ?? {
        account_type: row.account_type,
        currency: row.currency,
        totals: emptyTotals(),
      };
      if (row.kind in MOVEMENTS) entry.totals[row.kind] += row.amount;
      totals.set(key, entry);
    }
    const rows = [];
    for (const period of periods.toReversed()) {
      const bounds = await periodBounds(client, period, timeZone);
      const findings = await listPeriodFindings(client, period, bounds.from, bounds.to);
      const currencies = [...totals.entries()]
        .filter(([key]) => key.startsWith(`${period}\u0000`))
        .map(([, entry]) => ({
          account_type: entry.account_type,
          currency: entry.currency,
          net: activityOf(entry.totals).net,
          open_items: findings
            .filter((row) => row.status === 'open' && row.currency === entry.currency)
            .reduce((sum, row) => sum + row.findings, 0),
        }));
      const state = stateOf(period);
      rows.push({
        period,
        ...state,
        closed_at: state.closed_at?.toISOString() ?? null,
        currencies,
      });
    }
    return rows;
  });
}
