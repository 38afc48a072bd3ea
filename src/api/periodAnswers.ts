import type { Response } from 'express';
import type { z } from 'zod';
import { closePeriod, reopenPeriod } from '../close/closePeriod.ts';
import { findClosedVersion, listPeriodHistory, type PeriodVersionRow } from '../close/closeQueries.ts';
import { insertJournalExport, type JournalExportRow } from '../close/journalQueries.ts';
import { findChangesBase, type JournalRequest, partOf, periodJournal } from '../close/periodJournal.ts';
import { checkPeriod, type ServedPeriod, serveNamedPeriod } from '../close/periodService.ts';
import type { PeriodAction } from '../close/periods.ts';
import { renderPeriodCsv } from '../close/renderPeriod.ts';
import { renderPeriodHtml } from '../close/renderPeriodHtml.ts';
import type { AppDeps } from './deps.ts';
import type { periodStateSchema } from './openapi/periodSchemas.ts';

// What the API's period routes and the console's period pages both answer with: one implementation each.

/** A period named in a path, checked and served: the primary checks it, the replica (when fresh) serves it. */
export const serve = (deps: AppDeps, period: string): Promise<ServedPeriod> =>
  serveNamedPeriod({ pool: deps.pool, readPool: deps.reads.pool }, period, deps.config, deps.now());

/**
 * The close fields of a period's answer: its state, and for a closed one its version, hash and data cut-off;
 * typed by the answer's declared schema, so a field one of them lacks fails to compile.
 */
export function closeStateOf(
  closed: PeriodVersionRow | null,
): Omit<z.input<typeof periodStateSchema>, 'period' | 'history'> {
  return {
    status: closed ? ('closed' as const) : ('open' as const),
    version: closed?.version ?? null,
    closed_at: closed?.closed_at.toISOString() ?? null,
    closed_by: closed?.closed_by ?? null,
    content_sha256: closed?.content_sha256 ?? null,
    cut_off: closed?.cut_off ?? null,
  };
}

/** A period's journal downloads as the API and console show them. */
export function exportsOf(rows: JournalExportRow[]) {
  return rows.map(({ period: _period, created_at, ...row }) => ({
    ...row,
    created_at: created_at.toISOString(),
  }));
}

/** The close report as a file: a closed period's stored JSON byte for byte, CSV or a printable page. */
export function sendPeriodFile(res: Response, served: ServedPeriod, extension: 'json' | 'csv' | 'html') {
  if (extension === 'json') res.type('application/json').send(served.reportText);
  else if (extension === 'csv')
    res
      .type('text/csv; charset=utf-8')
      .attachment(`period-${served.report.period}.csv`)
      .send(renderPeriodCsv(served.report));
  else res.type('text/html; charset=utf-8').send(renderPeriodHtml(served.report));
}

/**
 * The journal file in a format, with the part count of a split format in `X-Parts`; a closed period's download is
 * recorded with who took it.
 */
export async function sendJournal(
  res: Response,
  deps: AppDeps,
  served: ServedPeriod,
  request: JournalRequest,
  actor: string,
) {
  const since = await findChangesBase(deps.reads.pool, served, request.changes_since);
  const journal = periodJournal(served, deps.config, request, since);
  if (served.status === 'closed')
    await insertJournalExport(deps.pool, {
      period: served.closed.period,
      version: served.closed.version,
      format: request.format,
      currency: request.currency ?? null,
      part: partOf(request),
      changes_since: request.changes_since ?? null,
      actor,
      created_at: deps.now(),
    });
  // attachment() sets a type from the extension (.iif has an odd one): the declared type is set after it.
  res
    .attachment(journal.fileName)
    .type(journal.contentType)
    .set('X-Parts', String(journal.parts))
    .send(journal.text);
}

/**
 * Closes or reopens a period named in a path (its refusals answered by the error handlers) and returns its state
 * and history after the change.
 */
export async function changePeriodState(
  deps: AppDeps,
  action: PeriodAction,
  change: { period: string; actor: string; note: string | null },
) {
  const now = deps.now();
  const period = await checkPeriod(deps.pool, change.period, deps.config, now);
  const request = { ...change, period, now };
  if (action === 'close') await closePeriod(deps.pool, deps.config, request);
  else await reopenPeriod(deps.pool, request);
  // Every change is attributed to the token that made it.
  deps.log.info({ period, action, actor: change.actor }, 'period state changed');
  return {
    period,
    ...closeStateOf(await findClosedVersion(deps.pool, period)),
    history: await listPeriodHistory(deps.pool, period),
  };
}
