import type { Response } from 'express';
import { z } from 'zod';
import { listPeriodHistory, type PeriodVersionRow } from '../../close/closeQueries.ts';
import {
  insertJournalExport,
  type JournalExportRow,
  listJournalExports,
} from '../../close/journalQueries.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { findChangesBase, JournalRefusedError, periodJournal } from '../../close/periodJournal.ts';
import {
  checkPeriod,
  malformedPeriod,
  PeriodError,
  type ServedPeriod,
  servePeriod,
} from '../../close/periodService.ts';
import { PERIOD } from '../../close/periods.ts';
import { renderPeriodCsv, renderPeriodHtml } from '../../close/renderPeriod.ts';
import { JOURNAL_FORMATS } from '../../domain/ledgerAccounts.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { oneOf, refusedAs } from './params.ts';
import { type Answer, json, ok, type Route, refused, route, text } from './route.ts';

/** A period in a path: a malformed one is 400 naming `period`, as `checkPeriod` words it. */
export const periodParams = z.object({
  period: refusedAs(
    z.string().regex(PERIOD),
    (value) => new HttpError(400, 'invalid_parameter', malformedPeriod(value)),
  ),
});

export const journalQuery = z.object({
  format: oneOf(JOURNAL_FORMATS),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code')
    .transform((value) => value.toLowerCase())
    .optional(),
  part: z.coerce.number<string>().int().min(1).max(10_000).optional(),
  changes_since: z.coerce
    .number<string>({ error: 'must be a version number (1, 2, …)' })
    .int('must be a version number (1, 2, …)')
    .min(1, 'must be a version number (1, 2, …)')
    .max(1_000_000, 'must be a version number (1, 2, …)')
    .optional(),
});

const serve = async (deps: AppDeps, raw: string): Promise<ServedPeriod> => {
  const now = deps.now();
  return servePeriod(deps.reads.pool, await checkedPeriod(deps, raw, now), deps.config, now);
};

export const periodsRoute = route({
  method: 'get',
  path: '/api/periods',
  tag: 'Reports',
  auth: 'read',
  summary: 'Every month from the earliest activity to the current one, newest first',
  answers: ok('Every period.', schemas.page('PeriodPage', schemas.periodSummarySchema, 'The periods.')),
  handler: (deps) => async (_req, res) => {
    const rows = await listPeriods(deps.reads.pool, deps.config, deps.now());
    res.json(list(rows, { has_previous: false, has_next: false, start_cursor: null, end_cursor: null }));
  },
});

export const periodRoute = route({
  method: 'get',
  path: '/api/periods/{period}',
  tag: 'Reports',
  auth: 'read',
  summary: 'The close report of a period (month to date for the current month)',
  description:
    'A period that is not `YYYY-MM`, is before the earliest activity or has not started is 400 naming `period`.',
  params: periodParams,
  answers: ok(
    'The close report.',
    schemas.single(
      'PeriodEnvelope',
      'period',
      schemas.periodReportSchema.and(
        z.looseObject({ ...schemas.closeStateShape, exports: schemas.journalExportsSchema }),
      ),
      'A period close report with its state and history.',
    ),
  ),
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      const served = await serve(deps, params.period);
      res.json(
        single('period', served.report.period, {
          ...served.report,
          ...closeStateOf(served.closed),
          history: await listPeriodHistory(deps.reads.pool, served.report.period),
          exports: exportsOf(await listJournalExports(deps.reads.pool, served.report.period)),
        }),
      );
    },
});

function periodFileRoute(
  extension: 'json' | 'csv' | 'html',
  summary: string,
  content: Answer['content'],
): Route {
  return route({
    method: 'get',
    path: `/api/periods/{period}.${extension}`,
    tag: 'Reports',
    auth: 'read',
    summary,
    params: periodParams,
    answers: { 200: { description: summary, content } },
    handler:
      (deps) =>
      async (_req, res, { params }) => {
        sendPeriodFile(res, await serve(deps, params.period), extension);
      },
  });
}

export const periodFileRoutes = [
  periodFileRoute('json', 'The close report as JSON', json(schemas.periodReportSchema)),
  periodFileRoute('csv', 'The close report, one row per account and currency', { 'text/csv': text }),
  periodFileRoute('html', 'The close report as a printable page', { 'text/html': text }),
];

export const journalRoute = route({
  method: 'get',
  path: '/api/periods/{period}/journal',
  tag: 'Reports',
  auth: 'read',
  summary: 'The journal of a period for a general ledger',
  description:
    "Balanced entries, live money only, in `csv`, `xero` (manual journal import: one currency a file, at most 300 lines a part, the part count in `X-Parts`), `quickbooks` (IIF) or `netsuite`, each entry under an id made from what it is. `currency` is required for xero and quickbooks when the period has several; xero and quickbooks refuse a currency other than `LEDGER_CURRENCY` (422). `changes_since=N` serves, of a period closed at a version after N, its changes journal against version N (new entries whole, vanished ones reversed, changed ones by their difference per account, ids suffixed `-v<version>`; only the header when nothing changed). Every download of a closed period's journal is recorded in the period's `exports`.",
  params: periodParams,
  query: journalQuery,
  answers: {
    200: { description: 'The journal file.', content: { 'text/csv': text, 'text/plain': text } },
    400: refused(
      'A parameter is malformed, a currency is required, a part is beyond the last, or `changes_since` is a version the period has not reached; the message names it.',
    ),
    409: refused(
      '`changes_since`: the period is not closed at a version after it; the message names the versions.',
    ),
    422: refused(
      '`currency`: xero and quickbooks book every amount in `LEDGER_CURRENCY`; the message names the currency and the formats that carry one (csv, netsuite).',
    ),
  },
  handler:
    (deps) =>
    async (req, res, { params, query }) => {
      const served = await serve(deps, params.period);
      await sendJournal(res, deps, served, query, req.principal?.name as string);
    },
});

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
 * The journal file in a format, with the part count of a Xero journal in `X-Parts`; a closed period's download is
 * recorded with who took it.
 */
export async function sendJournal(
  res: Response,
  deps: AppDeps,
  served: ServedPeriod,
  query: z.output<typeof journalQuery>,
  actor: string,
) {
  const request = { ...query, changesSince: query.changes_since };
  const since = await asJournalError(() => findChangesBase(deps.reads.pool, served, query.changes_since));
  const journal = asJournalError(() => periodJournal(served, deps.config, request, since));
  if (served.status === 'closed')
    await insertJournalExport(deps.pool, {
      period: served.closed.period,
      version: served.closed.version,
      format: query.format,
      currency: query.currency ?? null,
      part: query.format === 'xero' ? (query.part ?? 1) : null,
      changes_since: query.changes_since ?? null,
      actor,
      created_at: deps.now(),
    });
  // attachment() sets a type from the extension (.iif has an odd one): the declared type is set after it.
  res
    .attachment(journal.fileName)
    .type(query.format === 'quickbooks' ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8')
    .set('X-Parts', String(journal.parts))
    .send(journal.text);
}

/** A period named in a path, checked: 400 naming `period` when it is malformed, too early or not started. */
export async function checkedPeriod(deps: AppDeps, raw: string, now: Date): Promise<string> {
  return asParameterError(() => checkPeriod(deps.pool, raw, deps.config, now));
}

/** A PeriodError as a 400, a JournalRefusedError as its own status; both name their parameter. */
function asJournalError<T>(work: () => T): T {
  return asParameterError(() => {
    try {
      const result = work();
      return result instanceof Promise ? (result.catch(rethrowAsJournalError) as T) : result;
    } catch (err) {
      return rethrowAsJournalError(err);
    }
  });
}

function rethrowAsJournalError(err: unknown): never {
  if (err instanceof JournalRefusedError) throw new HttpError(err.status, err.code, err.message);
  throw err;
}

/** A PeriodError (it names its parameter) as a 400. */
function asParameterError<T>(work: () => T): T {
  try {
    const result = work();
    return result instanceof Promise ? (result.catch(rethrowAsParameterError) as T) : result;
  } catch (err) {
    return rethrowAsParameterError(err);
  }
}

function rethrowAsParameterError(err: unknown): never {
  if (err instanceof PeriodError) throw new HttpError(400, 'invalid_parameter', err.message);
  throw err;
}

/** The close fields of a period's answer: its state, and for a closed one its version, hash and data cut-off. */
export function closeStateOf(closed: PeriodVersionRow | null) {
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
