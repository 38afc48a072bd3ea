import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import { listPeriodHistory, type PeriodVersionRow } from '../../close/closeQueries.ts';
import { JOURNAL_FORMATS } from '../../close/ledgerAccounts.ts';
import { listPeriods } from '../../close/listPeriods.ts';
import { periodJournal } from '../../close/periodJournal.ts';
import { checkPeriod, PeriodError, type ServedPeriod, servePeriod } from '../../close/periodService.ts';
import { renderPeriodCsv, renderPeriodHtml } from '../../close/renderPeriod.ts';
import type { Config } from '../../config.ts';
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
  const serve = async (raw: string): Promise<ServedPeriod> => {
    const now = deps.now();
    return servePeriod(deps.reads.pool, await checkedPeriod(deps, raw, now), deps.config, now);
  };

  router.get('/periods', async (_req, res) => {
    const rows = await listPeriods(deps.reads.pool, deps.config, deps.now());
    res.json(list(rows, { has_previous: false, has_next: false, start_cursor: null, end_cursor: null }));
  });

  router.get('/periods/:period', async (req, res) => {
    const match = PERIOD_PATH.exec(req.params.period);
    const served = await serve(match?.[1] ?? req.params.period);
    const extension = match?.[2];
    if (extension) {
      sendPeriodFile(res, served, extension as 'json' | 'csv' | 'html');
      return;
    }
    res.json(
      single('period', served.report.period, {
        ...served.report,
        ...closeStateOf(served.closed),
        history: await listPeriodHistory(deps.reads.pool, served.report.period),
      }),
    );
  });

  router.get('/periods/:period/journal', async (req, res) => {
    const query = parseQuery(journalQuery, req.query);
    sendJournal(res, await serve(req.params.period), deps.config, query);
  });
  router.use(undecodablePathParam('period'));
  return router;
}

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

/** The journal file in a format, with the part count of a Xero journal in `X-Parts`. */
export function sendJournal(
  res: Response,
  served: ServedPeriod,
  config: Config,
  query: z.output<typeof journalQuery>,
) {
  const journal = asParameterError(() => periodJournal(served, config, query));
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
