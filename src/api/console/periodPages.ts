import express, { type RequestHandler, type Router } from 'express';
import { listPeriodHistory } from '../../close/closeQueries.ts';
import { listJournalExports } from '../../close/journalQueries.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { journalDownloads, journalRequestSchema } from '../../close/periodJournal.ts';
import { PERIOD_ACTIONS } from '../../close/periods.ts';
import { renderPeriodBody } from '../../close/renderPeriodHtml.ts';
import type { AppDeps } from '../deps.ts';
import {
  changePeriodState,
  closeStateOf,
  exportsOf,
  sendJournal,
  sendPeriodFile,
  serve,
} from '../periodAnswers.ts';
import { requireRole } from '../routes/auth.ts';
import { noteBody, parseBody, parseQuery, undecodablePathParam } from '../routes/params.ts';
import { renderPage } from './render.ts';
import { requireCsrfToken } from './session.ts';

const PERIOD_PATH = /^(.{0,40}?)(?:\.(json|csv|html))?$/;

/**
 * The periods (GET /api/periods' rows), one period's page (the walk per account and currency, open items linked
 * to their findings, downloads, history) and, for admins, the close and reopen forms (CSRF-checked). Downloads
 * go through the console's session: a browser sends no bearer token to /api/periods.
 */
export function periodPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/periods', async (req, res) => {
    renderPage(req, res, 'periods', { periods: await listPeriods(deps.reads.pool, deps.config, deps.now()) });
  });

  router.get('/periods/:period', async (req, res) => {
    const match = PERIOD_PATH.exec(req.params.period);
    const served = await serve(deps, match?.[1] ?? req.params.period);
    if (match?.[2]) {
      sendPeriodFile(res, served, match[2] as 'json' | 'csv' | 'html');
      return;
    }
    const { period } = served.report;
    const exports = await listJournalExports(deps.reads.pool, period);
    const version = served.closed?.version ?? null;
    // Once an earlier version's journal went out, importing this version whole would book it twice.
    const changesSince =
      exports.filter((row) => version !== null && row.version < version).at(-1)?.version ?? null;
    renderPage(req, res, 'period', {
      report: served.report,
      body: renderPeriodBody(served.report, (id) => `/console/findings/${encodeURIComponent(id)}`),
      state: closeStateOf(served.closed),
      history: await listPeriodHistory(deps.reads.pool, period),
      exports: exportsOf(exports),
      changesSince,
      downloads: journalDownloads(served, deps.config),
    });
  });

  router.get('/periods/:period/journal', async (req, res) => {
    const query = parseQuery(journalRequestSchema, req.query);
    await sendJournal(res, deps, await serve(deps, req.params.period), query, req.principal?.name as string);
  });

  const guards: RequestHandler[] = [
    requireCsrfToken,
    (req, _res, next) => {
      requireRole('admin', req.principal as NonNullable<typeof req.principal>);
      next();
    },
  ];
  for (const action of PERIOD_ACTIONS) {
    router.post(`/periods/:period/${action}`, ...guards, async (req, res) => {
      const { note } = parseBody(noteBody, req.body);
      const actor = req.principal?.name as string;
      const { period } = await changePeriodState(deps, action, {
        period: req.params.period as string,
        actor,
        note: note || null,
      });
      res.redirect(303, `/console/periods/${period}`);
    });
  }
  router.use(undecodablePathParam('period'));
  return router;
}
