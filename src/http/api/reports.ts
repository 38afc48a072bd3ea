import express, { type Router } from 'express';
import { findReport } from '../../db/findReport.ts';
import { listReports } from '../../db/listReports.ts';
import { renderCsv } from '../../reports/renderCsv.ts';
import { renderHtml } from '../../reports/renderHtml.ts';
import { reportId } from '../../reports/saveReport.ts';
import type { Report } from '../../reports/sections.ts';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';

const KINDS = new Set(['daily', 'fee-configurations']);

export function reportRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/reports', async (req, res) => {
    const kind = typeof req.query.kind === 'string' ? req.query.kind : undefined;
    const period = typeof req.query.period === 'string' ? req.query.period : undefined;
    if (kind !== undefined && !KINDS.has(kind))
      throw new HttpError(400, 'invalid_parameter', 'kind must be daily or fee-configurations');
    if (period !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(period))
      throw new HttpError(400, 'invalid_parameter', 'period must be YYYY-MM-DD');
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listReports(deps.pool, { kind, period }, page), page);
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
    const match = /^rpt_(\d+)(?:\.(json|csv|html))?$/.exec(req.params.id);
    if (!match)
      throw new HttpError(
        404,
        'resource_not_found',
        'no report with that id (rpt_<n>, optionally .json, .csv or .html)',
      );
    const row = await findReport(deps.pool, { id: Number(match[1]) });
    if (!row) throw new HttpError(404, 'resource_not_found', 'no report with that id');
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
  return router;
}
