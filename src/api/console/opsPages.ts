import express, { type Router } from 'express';
import { listAchReturns } from '../../findings/readQueries.ts';
import { listAlerts } from '../../ops/queries.ts';
import { listDisputes } from '../../projection/readQueries.ts';
import { findReport, listReports } from '../../reports/queries.ts';
import { renderCsv } from '../../reports/renderCsv.ts';
import { renderReportBody, reportTitle } from '../../reports/renderHtml.ts';
import type { Report } from '../../reports/reportSections.ts';
import { reportId } from '../../reports/saveReport.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { disputesQuery } from '../routes/disputes.ts';
import { achReturnFilterOf, achReturnsQuery, alertsQuery } from '../routes/opsSignals.ts';
import { pageFromQuery, paginate } from '../routes/pagination.ts';
import { parseQuery, parseRowId } from '../routes/params.ts';
import { reportsQuery } from '../routes/reports.ts';
import { pageLinks, renderPage } from './render.ts';

/** Alerts, ACH returns, disputes and reports: the API's lists, for reading, with its cursors. */
export function opsPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/alerts', async (req, res) => {
    const query = parseQuery(alertsQuery, req.query);
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listAlerts(deps.reads.pool, query, page), page);
    renderPage(req, res, 'alerts', { alerts: data, query, links: pageLinks(req, pageInfo) });
  });
  router.get('/ach-returns', async (req, res) => {
    const query = parseQuery(achReturnsQuery, req.query);
    const page = pageFromQuery(req.query);
    const rows = await listAchReturns(deps.reads.pool, achReturnFilterOf(query), page);
    const { data, pageInfo } = paginate(rows, page);
    renderPage(req, res, 'achReturns', { returns: data, query, links: pageLinks(req, pageInfo) });
  });
  router.get('/disputes', async (req, res) => {
    const query = parseQuery(disputesQuery, req.query);
    const page = pageFromQuery(req.query);
    const rows = await listDisputes(
      deps.reads.pool,
      { status: query.status, accountId: query.account_id },
      page,
    );
    const { data, pageInfo } = paginate(rows, page);
    renderPage(req, res, 'disputes', { disputes: data, query, links: pageLinks(req, pageInfo) });
  });
  router.get('/reports', async (req, res) => {
    const query = parseQuery(reportsQuery, req.query);
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listReports(deps.reads.pool, query, page), page);
    const reports = data.map((row) => ({ ...row, id: reportId(row.id) }));
    renderPage(req, res, 'reports', { reports, query, links: pageLinks(req, pageInfo) });
  });
  router.get('/reports/:id', async (req, res) => {
    const match = /^rpt_(\d+)(?:\.(csv|json))?$/.exec(req.params.id);
    const rowId = match?.[1] === undefined ? null : parseRowId(match[1]);
    const row = rowId === null ? null : await findReport(deps.reads.pool, { id: rowId });
    if (!row) throw new HttpError(404, 'resource_not_found', 'no report with that id');
    const id = reportId(row.id);
    const report = row.body as unknown as Report;
    // Downloads with the console's session: a browser sends no bearer token to /api/reports.
    if (match?.[2] === 'json') {
      res
        .type('application/json')
        .attachment(`${id}.json`)
        .send(JSON.stringify(report, null, 2));
      return;
    }
    if (match?.[2] === 'csv') {
      res.type('text/csv; charset=utf-8').attachment(`${id}.csv`);
      for (const line of renderCsv(report)) res.write(line);
      res.end();
      return;
    }
    // The report's own markup, escaped by its template; payments link to the console's payment page.
    const body = renderReportBody(
      report,
      id,
      (paymentId) => `/console/payments/${encodeURIComponent(paymentId)}`,
    );
    renderPage(req, res, 'report', { id, title: reportTitle(report), body });
  });
  return router;
}
