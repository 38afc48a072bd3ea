import { journalRequestSchema } from '../../close/periodJournal.ts';
import { sendJournal, serve } from '../periodAnswers.ts';
import { periodParams } from './periods.ts';
import { refused, route, text } from './route.ts';

export const journalRoute = route({
  method: 'get',
  path: '/api/periods/{period}/journal',
  tag: 'Reports',
  auth: 'read',
  summary: 'The journal of a period for a general ledger',
  description:
    "Balanced entries, live money only, in `csv`, `xero` (manual journal import: one currency a file, at most 300 lines a part, the part count in `X-Parts`), `quickbooks` (IIF) or `netsuite`, each entry under an id made from what it is. `currency` is required for xero and quickbooks when the period has several; xero and quickbooks refuse a currency other than `LEDGER_CURRENCY` (422). `changes_since=N` serves, of a period closed at a version after N, its changes journal against version N (new entries whole, vanished ones reversed, changed ones by their difference per account, ids suffixed `-v<version>`; only the header when nothing changed). Every download of a closed period's journal is recorded in the period's `exports`.",
  params: periodParams,
  query: journalRequestSchema,
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
