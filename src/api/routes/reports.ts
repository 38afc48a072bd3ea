import express, { type Router } from 'express';
import { z } from 'zod';
import { findReport, listReports } from '../../reports/queries.ts';
import { renderCsv } from '../../reports/renderCsv.ts';
import { renderHtml } from '../../reports/renderHtml.ts';
import type { Report } from '../../reports/reportSections.ts';
import { reportId } from '../../reports/saveReport.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { calendarDate, oneOf, parseQuery, parseRowId, undecodablePathParam } from './params.ts';

export const reportsQuery = z.object({
  kind: oneOf(['daily', 'fee-configurations']).optional(),
  period: calendarDate().optional(),
});
const REPORT_ID = /^rpt_(\d+)(?:\.(json|csv|html))?$/;

export function reportRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/reports', async (req, res) => {
    const filter = parseQuery(reportsQuery, req.query);
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listReports(deps.reads.pool, filter, page), page);
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
  });

  router.get('/reports/:id', async (req, res) => {
    // An id that cannot name a row (malformed, or past the bigint and safe-integer range) is simply unknown.
    const match = REPORT_ID.exec(req.params.id);
    const rowId = match?.[1] === undefined ? null : parseRowId(match[1]);
    if (!match || rowId === null)
      throw new HttpError(
        404,
        'resource_not_found',
        'id: no report with that id (rpt_<n>, optionally .json, .csv or .html)',
      );
    const row = await findReport(deps.reads.pool, { id: rowId });
    if (!row) throw new HttpError(404, 'resource_not_found', 'id: no report with that id');
    const id = reportId(row.id);
    const report = row.body as unknown as Report;
    const name = `${row.kind}${row.period ? `-${row.period}` : ''}-${id}`;
    switch (match[2]) {
      case 'json':
        res.type('application/json').send(JSON.stringify(report, null, 2));
        return;
      case 'csv':
        res.type('text/csv; charset=utf-8').attachment(`${name}.csv`);
        for (const line of renderCsv(report)) res.write(line);
        res.end();
        return;
      case 'html':
        res.type('text/html; charset=utf-8').send(renderHtml(report, id));
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
  });
  router.use(undecodablePathParam('id'));
  return router;
}
