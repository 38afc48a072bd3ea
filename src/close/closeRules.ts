import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { listSubAccounts } from '../feeConfigurations/queries.ts';
import { SEVERITIES } from '../findings/findings.ts';
import { findFirstActivityPeriod, hasActivity } from './activityQueries.ts';
import { listClosedPeriods } from './closeQueries.ts';
import { listAccountSyncs } from './closeRuleQueries.ts';
import { listBlockingFindings } from './openItemQueries.ts';
import { periodBounds, periodOf, periodsBetween, previousPeriod } from './periods.ts';

/** The provider retries a delivery for 24 h: a period closes only once that window after its end is over. */
const RETRY_WINDOW_MS = 24 * 3600_000;

const iso = (value: Date | null) => value?.toISOString() ?? 'never';

/** The severities that block a close under CLOSE_BLOCKING_SEVERITY: that one and every worse one (none for `none`). */
const blockingSeverities = (threshold: Config['CLOSE_BLOCKING_SEVERITY']) =>
  threshold === 'none' ? [] : SEVERITIES.slice(SEVERITIES.indexOf(threshold));

/** The accounts, with when they last did it, whose payout sync or missed-event sweep is older than `to`. */
async function findStalledAccounts(
  db: Queryable,
  config: Config,
  period: string,
  to: Date,
): Promise<string[]> {
  const accounts = await listSubAccounts(db, { configured: config.PROVIDER_SUB_ACCOUNTS });
  const syncs = await listAccountSyncs(db, accounts);
  const stalled = (field: 'payout_synced_at' | 'swept_at') =>
    syncs
      .filter((row) => row[field] === null || (row[field] as Date) < to)
      .map((row) => `${row.account_id} (last: ${iso(row[field])})`);
  const reasons: string[] = [];
  const notSwept = stalled('swept_at');
  if (notSwept.length > 0)
    reasons.push(`no missed-event sweep has completed since ${period} ended for ${notSwept.join(', ')}`);
  const notSynced = stalled('payout_synced_at');
  if (notSynced.length > 0)
    reasons.push(`no payout sync has completed since ${period} ended for ${notSynced.join(', ')}`);
  return reasons;
}

// A refusal names this many blocking findings, then how many more there are.
const NAMED_FINDINGS = 20;

/** Every rule (docs/month-end.md, "Closing a month") the period breaks now, as sentences; none when it may be closed. */
export async function findCloseRefusals(
  db: Queryable,
  period: string,
  config: Config,
  now: Date,
): Promise<string[]> {
  const { reasons, final } = await findOrderRefusals(db, period, config, now);
  return final ? reasons : [...reasons, ...(await findFindingRefusals(db, period, config))];
}

/**
 * The rules of the order and of the data (ended, earlier periods closed, synced since), as sentences; `final`
 * when the period is closed already or has not ended, which no other rule needs adding to.
 */
export async function findOrderRefusals(
  db: Queryable,
  period: string,
  config: Config,
  now: Date,
): Promise<{ reasons: string[]; final: boolean }> {
  const timeZone = config.BUSINESS_TIME_ZONE;
  const closed = await listClosedPeriods(db);
  const current = closed.find((row) => row.period === period);
  if (current) return { reasons: [`${period} is already closed (version ${current.version})`], final: true };
  if (period >= periodOf(now, timeZone)) return { reasons: [`${period} has not ended`], final: true };
  const reasons: string[] = [];
  const bounds = periodBounds(period, timeZone);
  const windowEnds = new Date(bounds.to.getTime() + RETRY_WINDOW_MS);
  if (now < windowEnds)
    reasons.push(`the provider's 24 h retry window after ${period} ends at ${windowEnds.toISOString()}`);
  const first = await findFirstActivityPeriod(db, timeZone, now);
  const closedPeriods = new Set(closed.map((row) => row.period));
  const open: string[] = [];
  if (first !== null && first < period) {
    for (const earlier of periodsBetween(first, previousPeriod(period))) {
      if (closedPeriods.has(earlier)) continue;
      const { from, to } = periodBounds(earlier, timeZone);
      if (await hasActivity(db, from, to, timeZone)) open.push(earlier);
    }
  }
  if (open.length > 0) reasons.push(`earlier periods with activity are not closed: ${open.join(', ')}`);
  reasons.push(...(await findStalledAccounts(db, config, period, bounds.to)));
  return { reasons, final: false };
}

/** The findings of CLOSE_BLOCKING_SEVERITY or worse the period has open or acknowledged, as a sentence. */
async function findFindingRefusals(db: Queryable, period: string, config: Config): Promise<string[]> {
  const bounds = periodBounds(period, config.BUSINESS_TIME_ZONE);
  const reasons: string[] = [];
  const severities = blockingSeverities(config.CLOSE_BLOCKING_SEVERITY);
  const blocking = severities.length === 0 ? [] : await listBlockingFindings(db, period, bounds, severities);
  if (blocking.length > 0) {
    const named = blocking
      .slice(0, NAMED_FINDINGS)
      .map((row) => `${row.id} ${row.code} (${row.severity}, ${row.subject_id})`);
    const more = blocking.length > NAMED_FINDINGS ? ` and ${blocking.length - NAMED_FINDINGS} more` : '';
    reasons.push(
      `findings of severity ${config.CLOSE_BLOCKING_SEVERITY} or worse are open or acknowledged (accept each with a note to close): ${named.join(', ')}${more}`,
    );
  }
  return reasons;
}
