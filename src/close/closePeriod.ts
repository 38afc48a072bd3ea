import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
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
import { findCloseRefusals, findOrderRefusals } from './closeRules.ts';
import { storedCutOff } from './cutOff.ts';
import { recordHeldMismatches } from './heldMismatches.ts';
import { journalOf } from './periodJournal.ts';
import { findPriorClose } from './periodService.ts';
import type { PeriodAction } from './periods.ts';

/** A close or reopen the rules refuse (409), or a reopen without a note (422); nothing was changed. */
export class CloseRefusedError extends Error {
  readonly reason: 'refused' | 'note_required';
  /** `close_refused`, `reopen_refused` or `note_required`: what the API answers with. */
  readonly code: string;
  constructor(message: string, reason: 'refused' | 'note_required', code: string) {
    super(message);
    this.reason = reason;
    this.code = code;
  }
}

const refusal = (period: string, action: PeriodAction, reasons: string[]) =>
  new CloseRefusedError(
    `${period} cannot be ${action === 'close' ? 'closed' : 'reopened'}: ${reasons.join('; ')}`,
    'refused',
    `${action}_refused`,
  );

/**
 * Closes a period: its report and journal (with this configuration's account names) are built in one snapshot
 * and stored as the next version with their sha256, who closed it, when, and the data cut-off. The report's
 * tie-out opens or resolves `period_held_mismatch` first (kept even when the close is then refused), so the
 * findings rule sees it. The rules are checked in the snapshot and again under the lock the store takes, so
 * two closes at once store one version.
 */
export async function closePeriod(
  pool: Pool,
  config: Config,
  request: { period: string; actor: string; note: string | null; now: Date },
): Promise<number> {
  const { period, now } = request;
  const timeZone = config.BUSINESS_TIME_ZONE;
  const built = await withReportSnapshot(pool, async (client, alongside) => {
    // The findings are judged after the tie-out below has recorded its own; every other rule stops here.
    const { reasons } = await findOrderRefusals(client, period, config, now);
    if (reasons.length > 0)
      throw refusal(period, 'close', await findCloseRefusals(client, period, config, now));
    const prior = await findPriorClose(client, period);
    return {
      ...(await buildPeriodClose(client, period, timeZone, now, prior, alongside)),
      cutOff: await readCutOff(client),
    };
  });
  await recordHeldMismatches(pool, built.report, now);
  const reportText = JSON.stringify(built.report, null, 2);
  const journalText = JSON.stringify(journalOf(built.report, config));
  return withTransaction(pool, async (client) => {
    await lockPeriodVersions(client);
    const reasons = await findCloseRefusals(client, period, config, now);
    if (reasons.length > 0) throw refusal(period, 'close', reasons);
    return insertPeriodVersion(
      client,
      {
        period,
        report: reportText,
        journal: journalText,
        content_sha256: createHash('sha256').update(`${reportText}\n${journalText}`).digest('hex'),
        booked: built.booked,
        cut_off: storedCutOff(built.cutOff),
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
    throw new CloseRefusedError(
      'note: required to reopen a period (body {"note": "…"})',
      'note_required',
      'note_required',
    );
  await withTransaction(pool, async (client) => {
    await lockPeriodVersions(client);
    if ((await findClosedVersion(client, period)) === null)
      throw refusal(period, 'reopen', [`${period} is not closed`]);
    const latest = (await listClosedPeriods(client)).at(-1);
    if (latest && latest.period !== period)
      throw refusal(period, 'reopen', [`only the latest closed period (${latest.period}) can be reopened`]);
    await markPeriodReopened(client, { period, actor: request.actor, note, at: request.now });
  });
}
