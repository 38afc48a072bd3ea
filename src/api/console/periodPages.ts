import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { listPeriodHistory } from '../../close/closeQueries.ts';
import { listJournalExports } from '../../close/journalQueries.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { type ServedPeriod, servePeriod } from '../../close/periodService.ts';
import { renderPeriodBody } from '../../close/renderPeriodHtml.ts';
import { BASE_CURRENCY_FORMATS, JOURNAL_FORMATS } from '../../domain/ledgerAccounts.ts';
import type { AppDeps } from '../deps.ts';
import { requireRole } from '../routes/auth.ts';
import { freeText, parseQuery, undecodablePathParam } from '../routes/params.ts';
import { changePeriodState } from '../routes/periodCloses.ts';
import { journalQuery, sendJournal } from '../routes/periodJournal.ts';
import { checkedPeriod, closeStateOf, exportsOf, sendPeriodFile } from '../routes/periods.ts';
import { renderPage } from './render.ts';
import { requireCsrfToken } from './session.ts';

const PERIOD_PATH = /^(.{0,40}?)(?:\.(json|csv|html))?$/;
const noteForm = z.object({ note: freeText({ maxLength: 2000 }).optional() });

/**
 * The periods (GET /api/periods' rows), one period's page (the walk per account and currency, open items linked
 * to their findings, downloads, history) and, for admins, the close and reopen forms (CSRF-checked). Downloads
 * go through the console's session: a browser sends no bearer token to /api/periods.
 */
export function periodPages(deps: AppDeps): Router {
  const router = express.Router();
  const serve = async (raw: string) => {
    const now = deps.now();
    return servePeriod(deps.reads.pool, await checkedPeriod(deps, raw, now), deps.config, now);
  };

  router.get('/periods', async (req, res) => {
    renderPage(req, res, 'periods', { periods: await listPeriods(deps.reads.pool, deps.config, deps.now()) });
  });

  router.get('/periods/:period', async (req, res) => {
    const match = PERIOD_PATH.exec(req.params.period);
    const served = await serve(match?.[1] ?? req.params.period);
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
      downloads: journalDownloads(served, deps.config.LEDGER_CURRENCY),
    });
  });

  router.get('/periods/:period/journal', async (req, res) => {
    const query = parseQuery(journalQuery, req.query);
    await sendJournal(res, deps, await serve(req.params.period), query, req.principal?.name as string);
  });

  const guards: RequestHandler[] = [
    requireCsrfToken,
    (req, _res, next) => {
      requireRole('admin', req.principal as NonNullable<typeof req.principal>);
      next();
    },
  ];
  for (const action of ['close', 'reopen'] as const) {
    router.post(`/periods/:period/${action}`, ...guards, async (req, res) => {
      const now = deps.now();
      const period = await checkedPeriod(deps, req.params.period as string, now);
      const { note } = parseQuery(noteForm, req.body);
      await changePeriodState(deps, action, {
        period,
        actor: req.principal?.name as string,
        note: note || null,
        now,
      });
      res.redirect(303, `/console/periods/${period}`);
    });
  }
  router.use(undecodablePathParam('period'));
  return router;
}

/**
 * The journal files the period offers, as query strings: csv and netsuite whole; xero and quickbooks one a
 * currency when there are several, and only in the ledger's base currency (they refuse any other).
 */
function journalDownloads(served: ServedPeriod, ledgerCurrency: string) {
  const base = served.closed ? (served.journal.settings.ledgerCurrency ?? ledgerCurrency) : ledgerCurrency;
  const currencies = [...new Set(served.report.journal.map((movement) => movement.currency))].sort();
  return JOURNAL_FORMATS.flatMap((format) => {
    const baseOnly = (BASE_CURRENCY_FORMATS as readonly string[]).includes(format);
    if (!baseOnly || currencies.length === 0) return [{ format, currency: null }];
    if (!currencies.includes(base)) return [];
    return [{ format, currency: currencies.length > 1 ? base : null }];
  });
}
