import { z } from 'zod';
import { PERIOD } from '../../close/periods.ts';
import { PERIOD_REPORT_FILES } from '../../close/renderPeriodHtml.ts';
import { findReport, listReports, REPORT_KINDS, type ReportKind } from '../../reports/queries.ts';
import { type ReportFiles, reportId, SECTION_FILES } from '../../reports/saveReport.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { paginate } from './pagination.ts';
import { calendarDate, oneOf, parseRowId, refusedAs } from './params.ts';
import { type Answer, notFound, ok, type Route, route, text } from './route.ts';

// Each kind's files, said once: a kind without them fails to compile.
const FILES_OF_KIND = {
  daily: SECTION_FILES,
  'fee-configurations': SECTION_FILES,
  period: PERIOD_REPORT_FILES,
} as const satisfies Record<ReportKind, ReportFiles<never>>;

const dayOrMonth = z
  .string()
  .refine(
    (value) => PERIOD.test(value) || calendarDate().safeParse(value).success,
    'must be a day (YYYY-MM-DD) or a month (YYYY-MM)',
  );

export const reportsQuery = z.object({
  kind: oneOf(REPORT_KINDS).optional(),
  period: dayOrMonth.optional(),
});

// An id that cannot name a row (malformed, or past the bigint and safe-integer range) is simply unknown.
const reportParams = z.object({
  id: refusedAs(
    z
      .string()
      .regex(/^rpt_[1-9]\d*$/)
      .transform((value, context) => {
        const id = parseRowId(value.slice('rpt_'.length));
        if (id === null) context.addIssue({ code: 'custom', message: 'names no report' });
        return id ?? z.NEVER;
      }),
    () =>
      new HttpError(
        404,
        'resource_not_found',
        'id: no report with that id (rpt_<n>, optionally .json, .csv or .html)',
      ),
  ),
});

export const reportsRoute = route({
  method: 'get',
  path: '/api/reports',
  tag: 'Reports',
  auth: 'read',
  summary: 'Stored reports, newest first',
  query: reportsQuery,
  paging: 'rows',
  answers: ok(
    'A page.',
    schemas.page('ReportPage', schemas.reportListItemSchema, 'Stored reports, newest first'),
  ),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const { data, pageInfo } = paginate(await listReports(deps.reads.pool, query, page), page);
      const links = (id: string) => ({
        json: `/api/reports/${id}.json`,
        csv: `/api/reports/${id}.csv`,
        html: `/api/reports/${id}.html`,
      });
      res.json(
        list(
          data.map((row) => ({ ...row, id: reportId(row.id), links: links(reportId(row.id)) })),
          pageInfo,
        ),
      );
    },
});

/** A stored report, as the envelope (no extension) or as one of its files. */
function reportRoute(extension: 'json' | 'csv' | 'html' | null, summary: string, answer: Answer): Route {
  return route({
    method: 'get',
    path: extension ? `/api/reports/{id}.${extension}` : '/api/reports/{id}',
    tag: 'Reports',
    auth: 'read',
    summary,
    params: reportParams,
    answers: { 200: answer, ...notFound('report') },
    handler:
      (deps) =>
      async (_req, res, { params }) => {
        const row = await findReport(deps.reads.pool, { id: params.id });
        if (!row) throw new HttpError(404, 'resource_not_found', 'id: no report with that id');
        const id = reportId(row.id);
        const report = row.body as never;
        const files: ReportFiles<never> = FILES_OF_KIND[row.kind];
        switch (extension) {
          case 'json':
            res.type('application/json').send(JSON.stringify(report, null, 2));
            return;
          case 'csv':
            res
              .type('text/csv; charset=utf-8')
              .attachment(`${files.name({ kind: row.kind, period: row.period, id })}.csv`)
              .send(files.csv(report));
            return;
          case 'html':
            res.type('text/html; charset=utf-8').send(files.html(report, id));
            return;
          default:
            res.json(
              single('report', id, {
                id,
                kind: row.kind,
                period: row.period,
                created_at: row.created_at,
                body: report,
              }),
            );
        }
      },
  });
}

const file = (summary: string, content: Answer['content']): Answer => ({ description: summary, content });

export const reportRoutes = [
  reportRoute(null, 'A stored report', {
    description: 'The report.',
    content: {
      'application/json': schemas.single('ReportEnvelope', 'report', schemas.reportSchema, 'One report.'),
    },
  }),
  reportRoute(
    'json',
    'The report body as indented JSON',
    file('The report body as indented JSON', {
      'application/json': schemas.reportBodySchema,
    }),
  ),
  reportRoute('csv', 'The report as CSV', file('The report as CSV', { 'text/csv': text })),
  reportRoute(
    'html',
    'The report as a printable page',
    file('The report as a printable page', { 'text/html': text }),
  ),
];
