import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { MOVEMENT_KINDS } from '../domain/movementKinds.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { type AccountKey, keyOf, type PeriodReport, totalsByKey } from './buildPeriodReport.ts';
import { findClosedVersion, listClosedPeriods } from './closeQueries.ts';
import { listMovements } from './movementQueries.ts';
import { storedReport } from './periodService.ts';
import { periodBounds } from './periods.ts';
import { emptyTotals, type KindTotals, WALK_TERMS, type Walk, walkOf } from './walk.ts';

const SCOPE = 'closed-period-check';

/**
 * One closed period's changes per account and currency: its movements as Tally now knows them against those
 * stored at the close. The walk is recomputed from the closed held_start and prior_period_adjustments (what the
 * close booked of earlier periods), so a change to an earlier period is that period's finding, not this one's.
 */
export function closedPeriodDrafts(
  report: PeriodReport,
  version: number,
  now: Map<string, { key: AccountKey; totals: KindTotals }>,
): FindingDraft[] {
  const stored = new Map(report.accounts.map((row) => [keyOf(row), row]));
  const keys = new Set([...stored.keys(), ...now.keys()]);
  const drafts: FindingDraft[] = [];
  for (const key of [...keys].sort()) {
    const closed = stored.get(key);
    const current = now.get(key);
    const account: AccountKey | undefined = closed ?? current?.key;
    if (account === undefined) continue;
    const closedTotals = closed?.movements ?? emptyTotals();
    const totals = current?.totals ?? emptyTotals();
    const items = MOVEMENT_KINDS.filter((kind) => totals[kind] !== closedTotals[kind]).map((kind) => ({
      kind,
      closed: closedTotals[kind],
      now: totals[kind],
    }));
    if (items.length === 0) continue;
    const closedWalk: Walk = closed?.walk ?? walkOf(0, 0, 0, emptyTotals());
    const heldBefore = closedWalk.held_start + closedWalk.prior_period_adjustments;
    const walk = walkOf(closedWalk.held_start, closedWalk.prior_period_adjustments, heldBefore, totals);
    const terms = WALK_TERMS.filter((term) => walk[term] !== closedWalk[term]).map((term) => ({
      term,
      closed: closedWalk[term],
      now: walk[term],
    }));
    drafts.push({
      code: 'closed_period_changed',
      severity: 'warning',
      subjectType: 'period',
      subjectId: `${report.period}:${account.account_id}:${account.currency}`,
      expected: closedWalk,
      actual: walk,
      details: { period: report.period, version, account_type: account.account_type, terms, items },
      atStake: Math.max(0, ...terms.map((row) => Math.abs(row.now - row.closed))),
      accountId: account.account_id,
      currency: account.currency,
    });
  }
  return drafts;
}

/**
 * Recomputes every closed period's movements in one snapshot and compares them with its stored version:
 * `closed_period_changed` for each account and currency that moved; those that agree again (the period was
 * reopened and closed anew) are resolved.
 */
export async function checkClosedPeriods(
  pool: Pool,
  config: Config,
  now: Date,
): Promise<{ periods: number; changed: number }> {
  const timeZone = config.BUSINESS_TIME_ZONE;
  let checked = 0;
  const drafts = await withReportSnapshot(pool, async (client) => {
    const found: FindingDraft[] = [];
    const closedPeriods = await listClosedPeriods(client);
    checked = closedPeriods.length;
    for (const { period } of closedPeriods) {
      const version = await findClosedVersion(client, period);
      if (version === null) continue;
      const { from, to } = periodBounds(period, timeZone);
      const current = totalsByKey(await listMovements(client, from, to, timeZone, 'month'));
      found.push(...closedPeriodDrafts(storedReport(version), version.version, current));
    }
    return found;
  });
  await withTransaction(pool, (client) =>
    recordFindings(client, { scope: SCOPE, accountId: null, currency: null, now }, drafts),
  );
  return { periods: checked, changed: drafts.length };
}
