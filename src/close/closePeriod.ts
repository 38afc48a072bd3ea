import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { listSubAccounts } from '../feeConfigurations/queries.ts';
import { SEVERITIES } from '../findings/findings.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { findFirstActivityPeriod, hasActivity } from './activityQueries.ts';
import { buildPeriodClose } from './buildPeriodReport.ts';
import {
  findClosedVersion,
  insertPeriodVersion,
  listClosedPeriods,
  lockPeriodVersions,
  markPeriodReopened,
  readCutOff,
} from './closeQueries.ts';
import { listAccountSyncs } from './closeRuleQueries.ts';
import { buildJournalEntries } from './journal.ts';
import type { StoredJournal } from './journalFormats.ts';
import { listBlockingFindings } from './openItemQueries.ts';
import { findPriorClose } from './periodService.ts';
import { periodBounds, periodOf, periodsBetween, previousPeriod } from './periods.ts';

/** The journal of a closed version: its entries and the account names and settings they were closed with. */

/** The provider retries a delivery for 24 h: a period closes only once that window after its end is over. */
const RETRY_WINDOW_MS = 24 * 3600_000;

/** A close or reopen the rules refuse (409), or a reopen without a note (422); nothing was changed. */
export class CloseRefusedError extends Error {
  readonly reason: 'refused' | 'note_required';
  constructor(message: string, reason: 'refused' | 'note_required') {
    super(message);
    this.reason = reason;
  }
}

const iso = (value: Date | null) => value?.toISOString() ?? 'never';

/** Whether a finding of this severity meets CLOSE_BLOCKING_SEVERITY: that severity or worse blocks a close. */
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

/** Every rule (DESIGN.md, "Closing") the period breaks now, as sentences; none when it may be closed. */
export async function findCloseRefusals(
  db: Queryable,
  period: string,
  config: Config,
  now: Date,
): Promise<string[]> {
  const timeZone = config.BUSINESS_TIME_ZONE;
  const closed = await listClosedPeriods(db);
  const current = closed.find((row) => row.period === period);
  if (current) return [`${period} is already closed (version ${current.version})`];
  if (period >= periodOf(now, timeZone)) return [`${period} has not ended`];
  const reasons: string[] = [];
  const bounds = await periodBounds(db, period, timeZone);
  const windowEnds = new Date(bounds.to.getTime() + RETRY_WINDOW_MS);
  if (now < windowEnds)
    reasons.push(`the provider's 24 h retry window after ${period} ends at ${windowEnds.toISOString()}`);
  const first = await findFirstActivityPeriod(db, timeZone, now);
  const closedPeriods = new Set(closed.map((row) => row.period));
  const open: string[] = [];
  if (first !== null && first < period) {
    for (const earlier of periodsBetween(first, previousPeriod(period))) {
      if (closedPeriods.has(earlier)) continue;
      const { from, to } = await periodBounds(db, earlier, timeZone);
      if (await hasActivity(db, from, to, timeZone)) open.push(earlier);
    }
  }
  if (open.length > 0) reasons.push(`earlier periods with activity are not closed: ${open.join(', ')}`);
  reasons.push(...(await findStalledAccounts(db, config, period, bounds.to)));
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

const refusal = (period: string, action: string, reasons: string[]) =>
  new CloseRefusedError(`${period} cannot be ${action}: ${reasons.join('; ')}`, 'refused');

/**
 * Closes a period: its report and journal (with this configuration's account names) are built in one snapshot
 * and stored as the next version with their sha256, who closed it, when, and the data cut-off. The rules are
 * checked in the snapshot and again under the lock the store takes, so two closes at once store one version.
 */
export async function closePeriod(
  pool: Pool,
  config: Config,
  request: { period: string; actor: string; note: string | null; now: Date },
): Promise<number> {
  const { period, now } = request;
  const timeZone = config.BUSINESS_TIME_ZONE;
  const built = await withReportSnapshot(pool, async (client) => {
    const reasons = await findCloseRefusals(client, period, config, now);
    if (reasons.length > 0) throw refusal(period, 'closed', reasons);
    const prior = await findPriorClose(client, period);
    return {
      ...(await buildPeriodClose(client, period, timeZone, now, prior)),
      cutOff: await readCutOff(client),
    };
  });
  const reportText = JSON.stringify(built.report, null, 2);
  const journal: StoredJournal = {
    settings: {
      accounts: config.LEDGER_ACCOUNTS,
      xeroTaxRate: config.LEDGER_XERO_TAX_RATE,
      ...(config.LEDGER_NETSUITE_SUBSIDIARY === undefined
        ? {}
        : { netsuiteSubsidiary: config.LEDGER_NETSUITE_SUBSIDIARY }),
    },
    entries: buildJournalEntries(period, built.report.journal),
  };
  const journalText = JSON.stringify(journal);
  return withTransaction(pool, async (client) => {
    await lockPeriodVersions(client);
    const reasons = await findCloseRefusals(client, period, config, now);
    if (reasons.length > 0) throw refusal(period, 'closed', reasons);
    return insertPeriodVersion(
      client,
      {
        period,
        report: reportText,
        journal: journalText,
        content_sha256: createHash('sha256').update(`${reportText}\n${journalText}`).digest('hex'),
        booked: built.booked,
        cut_off: {
          last_delivery_received_at: built.cutOff.last_delivery_received_at?.toISOString() ?? null,
          last_sweep_at: built.cutOff.last_sweep_at?.toISOString() ?? null,
          last_payout_sync_at: built.cutOff.last_payout_sync_at?.toISOString() ?? null,
          newest_statement_date: built.cutOff.newest_statement_date,
        },
        closed_by: request.actor,
        closed_at: now,
      },
      request.note,
    );
  });
}

/** Reopens the latest closed period (a note is required): it shows its current numbers again. */
export async function reopenPeriod(
  pool: Pool,
  request: { period: string; actor: string; note: string | null; now: Date },
): Promise<void> {
  const { period, note } = request;
  if (note === null || note.trim() === '')
    throw new CloseRefusedError('note: required to reopen a period (body {"note": "…"})', 'note_required');
  await withTransaction(pool, async (client) => {
    await lockPeriodVersions(client);
    if ((await findClosedVersion(client, period)) === null)
      throw refusal(period, 'reopened', [`${period} is not closed`]);
    const latest = (await listClosedPeriods(client)).at(-1);
    if (latest && latest.period !== period)
      throw refusal(period, 'reopened', [`only the latest closed period (${latest.period}) can be reopened`]);
    await markPeriodReopened(client, { period, actor: request.actor, note, at: request.now });
  });
}
