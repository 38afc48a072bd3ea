import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import { buildPeriodClose } from './buildPeriodReport.ts';
import {
  findClosedVersion,
  insertPeriodVersion,
  listClosedPeriods,
  lockPeriodVersions,
  markPeriodReopened,
  readCutOff,
} from './closeQueries.ts';
import { buildJournalEntries } from './journal.ts';
import type { StoredJournal } from './journalFormats.ts';
import { findPriorClose } from './periodService.ts';
import {
  findFirstActivityPeriod,
  periodBounds,
  periodOf,
  periodsBetween,
  previousPeriod,
} from './periods.ts';

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

/** Has a payment, refund or payout created in it (the activity GET /api/periods counts from). */
async function hasActivity(db: Queryable, from: Date, to: Date): Promise<boolean> {
  const { rows } = await db.query<{ active: boolean }>(
    `select exists (select 1 from payments where created_at >= $1::timestamptz and created_at < $2::timestamptz)
         or exists (select 1 from refunds where created_at >= $1::timestamptz and created_at < $2::timestamptz)
         or exists (select 1 from payouts where created_at >= $1::timestamptz and created_at < $2::timestamptz)
         as active`,
    [from, to],
  );
  return rows[0]?.active === true;
}

/** Every rule (docs/month-end.md, "Closing a month") the period breaks now, as sentences; none when it may be closed. */
export async function findCloseRefusals(
  db: Queryable,
  period: string,
  timeZone: string,
  now: Date,
): Promise<string[]> {
  const closed = await listClosedPeriods(db);
  const current = closed.find((row) => row.period === period);
  if (current) return [`${period} is already closed (version ${current.version})`];
  if (period >= periodOf(now, timeZone)) return [`${period} has not ended`];
  const reasons: string[] = [];
  const { to } = await periodBounds(db, period, timeZone);
  const windowEnds = new Date(to.getTime() + RETRY_WINDOW_MS);
  if (now < windowEnds)
    reasons.push(`the provider's 24 h retry window after ${period} ends at ${windowEnds.toISOString()}`);
  const first = await findFirstActivityPeriod(db, timeZone);
  const closedPeriods = new Set(closed.map((row) => row.period));
  const open: string[] = [];
  if (first !== null && first < period) {
    for (const earlier of periodsBetween(first, previousPeriod(period))) {
      if (closedPeriods.has(earlier)) continue;
      const bounds = await periodBounds(db, earlier, timeZone);
      if (await hasActivity(db, bounds.from, bounds.to)) open.push(earlier);
    }
  }
  if (open.length > 0) reasons.push(`earlier periods with activity are not closed: ${open.join(', ')}`);
  const cutOff = await readCutOff(db);
  if (cutOff.last_sweep_at === null || cutOff.last_sweep_at < to)
    reasons.push(
      `no missed-event sweep has completed since ${period} ended (last: ${iso(cutOff.last_sweep_at)})`,
    );
  if (cutOff.last_payout_sync_at === null || cutOff.last_payout_sync_at < to)
    reasons.push(
      `no payout sync has completed since ${period} ended (last: ${iso(cutOff.last_payout_sync_at)})`,
    );
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
    const reasons = await findCloseRefusals(client, period, timeZone, now);
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
    const reasons = await findCloseRefusals(client, period, timeZone, now);
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
