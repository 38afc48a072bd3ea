import type { Response } from 'express';
import { z } from 'zod';
import { insertJournalExport } from '../../close/journalQueries.ts';
import { findChangesBase, JournalRefusedError, periodJournal } from '../../close/periodJournal.ts';
import type { ServedPeriod } from '../../close/periodService.ts';
import { JOURNAL_FORMATS } from '../../domain/ledgerAccounts.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { oneOf } from './params.ts';
import { asParameterError, periodParams, serve } from './periods.ts';
import { refused, route, text } from './route.ts';

export const journalQuery = z.object({
  format: oneOf(JOURNAL_FORMATS),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code')
    .transform((value) => value.toLowerCase())
    .optional(),
  part: z.coerce.number<string>().int().min(1).max(10_000).optional(),
  changes_since: z.coerce
    .number<string>({ error: 'must be a version number (1, 2, …)' })
    .int('must be a version number (1, 2, …)')
    .min(1, 'must be a version number (1, 2, …)')
    .max(1_000_000, 'must be a version number (1, 2, …)')
    .optional(),
});

export const journalRoute = route({
  method: 'get',
  path: '/api/periods/{period}/journal',
  tag: 'Reports',
  auth: 'read',
  summary: 'The journal of a period for a general ledger',
  description:
    "Balanced entries, live money only, in `csv`, `xero` (manual journal import: one currency a file, at most 300 lines a part, the part count in `X-Parts`), `quickbooks` (IIF) or `netsuite`, each entry under an id made from what it is. `currency` is required for xero and quickbooks when the period has several; xero and quickbooks refuse a currency other than `LEDGER_CURRENCY` (422). `changes_since=N` serves, of a period closed at a version after N, its changes journal against version N (new entries whole, vanished ones reversed, changed ones by their difference per account, ids suffixed `-v<version>`; only the header when nothing changed). Every download of a closed period's journal is recorded in the period's `exports`.",
  params: periodParams,
  query: journalQuery,
  answers: {
    200: { description: 'The journal file.', content: { 'text/csv': text, 'text/plain': text } },
    400: refused(
      'A parameter is malformed, a currency is required, a part is beyond the last, or `changes_since` is a version the period has not reached; the message names it.',
    ),
    409: refused(
      '`changes_since`: the period is not closed at a version after it; the message names the versions.',
    ),
    422: refused(
      '`currency`: xero and quickbooks book every amount in `LEDGER_CURRENCY`; the message names the currency and the formats that carry one (csv, netsuite).',
    ),
  },
  handler:
    (deps) =>
    async (req, res, { params, query }) => {
      const served = await serve(deps, params.period);
      await sendJournal(res, deps, served, query, req.principal?.name as string);
    },
});

/**
 * The journal file in a format, with the part count of a Xero journal in `X-Parts`; a closed period's download is
 * recorded with who took it.
 */
export async function sendJournal(
  res: Response,
  deps: AppDeps,
  served: ServedPeriod,
  query: z.output<typeof journalQuery>,
  actor: string,
) {
  const request = { ...query, changesSince: query.changes_since };
  const since = await asJournalError(() => findChangesBase(deps.reads.pool, served, query.changes_since));
  const journal = asJournalError(() => periodJournal(served, deps.config, request, since));
  if (served.status === 'closed')
    await insertJournalExport(deps.pool, {
      period: served.closed.period,
      version: served.closed.version,
      format: query.format,
      currency: query.currency ?? null,
      part: query.format === 'xero' ? (query.part ?? 1) : null,
      changes_since: query.changes_since ?? null,
      actor,
      created_at: deps.now(),
    });
  // attachment() sets a type from the extension (.iif has an odd one): the declared type is set after it.
  res
    .attachment(journal.fileName)
    .type(query.format === 'quickbooks' ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8')
    .set('X-Parts', String(journal.parts))
    .send(journal.text);
}

/** A PeriodError as a 400, a JournalRefusedError as its own status; both name their parameter. */
function asJournalError<T>(work: () => T): T {
  return asParameterError(() => {
    try {
      const result = work();
      return result instanceof Promise ? (result.catch(rethrowAsJournalError) as T) : result;
    } catch (err) {
      return rethrowAsJournalError(err);
    }
  });
}

function rethrowAsJournalError(err: unknown): never {
  if (err instanceof JournalRefusedError) throw new HttpError(err.status, err.code, err.message);
  throw err;
}
