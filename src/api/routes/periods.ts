import express, { type Router } from 'express';
import { z } from 'zod';
import type { PeriodReport } from '../../close/buildPeriodReport.ts';
import { buildJournalEntries } from '../../close/journal.ts';
import { renderJournal, xeroParts } from '../../close/journalFormats.ts';
import { JOURNAL_FORMATS } from '../../close/ledgerAccounts.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { checkPeriod, currentPeriodReport, PeriodError } from '../../close/periodService.ts';
import { renderPeriodCsv, renderPeriodHtml } from '../../close/renderPeriod.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { oneOf, parseQuery, undecodablePathParam } from './params.ts';

const PERIOD_PATH = /^(.{0,40}?)(?:\.(json|csv|html))?$/;

export const journalQuery = z.object({
  format: oneOf(JOURNAL_FORMATS),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code')
    .transform((value) => value.toLowerCase())
    .optional(),
  part: z.coerce.number<string>().int().min(1).max(10_000).optional(),
});

export function periodRoutes(deps: AppDeps): Router {
  const router = express.Router();
  const report = async (raw: string): Promise<PeriodReport> => {
    const now = deps.now();
    try {
      const period = await checkPeriod(deps.pool, raw, deps.config, now);
      return await currentPeriodReport(deps.pool, period, deps.config, now);
    } catch (err) {
      if (err instanceof PeriodError) throw new HttpError(400, 'invalid_parameter', err.message);
      throw err;
    }
  };

  router.get('/periods', async (_req, res) => {
    const rows = await listPeriods(deps.pool, deps.config, deps.now(), () => ({
      status: 'open',
      version: null,
      closed_at: null,
      closed_by: null,
    }));
    res.json(list(rows, { has_previous: false, has_next: false, start_cursor: null, end_cursor: null }));
  });

  router.get('/periods/:period', async (req, res) => {
    const match = PERIOD_PATH.exec(req.params.period);
    const body = await report(match?.[1] ?? req.params.period);
    switch (match?.[2]) {
      case 'json':
        res.type('application/json').send(JSON.stringify(body, null, 2));
        return;
      case 'csv':
        res
          .type('text/csv; charset=utf-8')
          .attachment(`period-${body.period}.csv`)
          .send(renderPeriodCsv(body));
        return;
      case 'html':
        res.type('text/html; charset=utf-8').send(renderPeriodHtml(body));
        return;
      default:
        res.json(single('period', body.period, body));
    }
  });

  router.get('/periods/:period/journal', async (req, res) => {
    const query = parseQuery(journalQuery, req.query);
    const body = await report(req.params.period);
    const currencies = [...new Set(body.journal.map((movement) => movement.currency))].sort();
    const oneCurrency = query.format !== 'csv' && query.format !== 'netsuite';
    if (query.currency === undefined && oneCurrency && currencies.length > 1)
      throw new HttpError(
        400,
        'invalid_parameter',
        `currency: required, the period has several currencies (${currencies.join(', ')}) and ${query.format} takes one a file`,
      );
    const movements = body.journal.filter(
      (movement) => query.currency === undefined || movement.currency === query.currency,
    );
    let entries = buildJournalEntries(body.period, movements);
    let parts = 1;
    if (query.format === 'xero') {
      const split = xeroParts(entries);
      parts = split.length;
      const part = query.part ?? 1;
      if (part > parts)
        throw new HttpError(400, 'invalid_parameter', `part: the journal has ${parts} part(s)`);
      entries = split[part - 1] ?? [];
    }
    const settings = {
      accounts: deps.config.LEDGER_ACCOUNTS,
      xeroTaxRate: deps.config.LEDGER_XERO_TAX_RATE,
      netsuiteSubsidiary: deps.config.LEDGER_NETSUITE_SUBSIDIARY,
    };
    const extension = query.format === 'quickbooks' ? 'iif' : 'csv';
    const name = `journal-${body.period}-${query.format}${query.currency ? `-${query.currency}` : ''}${query.format === 'xero' ? `-part${query.part ?? 1}` : ''}`;
    // attachment() sets a type from the extension (.iif has an odd one): the declared type is set after it.
    res
      .attachment(`${name}.${extension}`)
      .type(query.format === 'quickbooks' ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8')
      .set('X-Parts', String(parts))
      .send(renderJournal(query.format, entries, settings));
  });
  router.use(undecodablePathParam('period'));
  return router;
}
