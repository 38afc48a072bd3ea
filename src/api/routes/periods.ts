import type { Response } from 'express';
import { z } from 'zod';
import { listPeriodHistory, type PeriodVersionRow } from '../../close/closeQueries.ts';
import { type JournalExportRow, listJournalExports } from '../../close/journalQueries.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import {
  checkPeriod,
  malformedPeriod,
  PeriodError,
  type ServedPeriod,
  servePeriod,
} from '../../close/periodService.ts';
import { PERIOD } from '../../close/periods.ts';
import { renderPeriodCsv } from '../../close/renderPeriod.ts';
import { renderPeriodHtml } from '../../close/renderPeriodHtml.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { refusedAs } from './params.ts';
import { type Answer, json, ok, type Route, route, text } from './route.ts';

/** A period in a path: a malformed one is 400 naming `period`, as `checkPeriod` words it. */
export const periodParams = z.object({
  period: refusedAs(
    z.string().regex(PERIOD),
    (value) => new HttpError(400, 'invalid_parameter', malformedPeriod(value)),
  ),
});

export const serve = async (deps: AppDeps, raw: string): Promise<ServedPeriod> => {
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

/** A period named in a path, checked: 400 naming `period` when it is malformed, too early or not started. */
export async function checkedPeriod(deps: AppDeps, raw: string, now: Date): Promise<string> {
  return asParameterError(() => checkPeriod(deps.pool, raw, deps.config, now));
}

/** A PeriodError (it names its parameter) as a 400. */
export function asParameterError<T>(work: () => T): T {
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
