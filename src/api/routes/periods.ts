import { z } from 'zod';
import { listPeriodHistory } from '../../close/closeQueries.ts';
import { listJournalExports } from '../../close/journalQueries.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { malformedPeriod } from '../../close/periodService.ts';
import { PERIOD } from '../../close/periods.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { closeStateOf, exportsOf, sendPeriodFile, serve } from '../periodAnswers.ts';
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
