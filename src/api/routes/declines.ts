import { z } from 'zod';
import { presentDecline } from '../../declines/presentDecline.ts';
import { listDeclines } from '../../declines/queries.ts';
import { RETRY_ADVICE } from '../../domain/declines.ts';
import type { AppDeps } from '../deps.ts';
import * as schemas from '../openapi/responses.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { calendarDate, oneOf, parseQuery, storableText } from './params.ts';
import { ok, route } from './route.ts';

const SINCE_PROBLEM = 'must be a date (YYYY-MM-DD) or a timestamp with its offset (ISO 8601)';
const sinceForms = z.union([calendarDate(), z.iso.datetime({ offset: true })]);

/** A calendar date (its UTC midnight) or an ISO 8601 timestamp with its offset, from year 1 on. */
export function sinceParam() {
  return storableText({ maxLength: 40 }).transform((value, context) => {
    const at = sinceForms.safeParse(value).success ? new Date(value) : null;
    if (at === null || Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1) {
      context.addIssue({ code: 'custom', message: SINCE_PROBLEM });
      return z.NEVER;
    }
    return at;
  });
}

// Networks stay free text: the provider's are kept verbatim, including ones the seed does not name.
export const declinesQuery = z.object({
  advice: oneOf(RETRY_ADVICE).optional(),
  network: storableText().optional(),
  account_id: storableText().optional(),
  since: sinceParam().optional(),
});

/** The filter of a parsed declines query. */
function declineFilterOf(query: z.output<typeof declinesQuery>) {
  return { advice: query.advice, network: query.network, accountId: query.account_id, since: query.since };
}

/** The declines a console request's query selects, one page of them. */
export async function listDeclinesOfRequest(deps: AppDeps, requestQuery: Record<string, unknown>) {
  const query = parseQuery(declinesQuery, requestQuery);
  const page = pageFromQuery(requestQuery);
  return paginate(await listDeclines(deps.reads.pool, declineFilterOf(query), page), page);
}

/** GET /api/declines?advice=&network=&account_id=&since=, newest first, in the provider's list envelope. */
export const declinesRoute = route({
  method: 'get',
  path: '/api/declines',
  tag: 'Payments',
  auth: 'read',
  summary: 'Declined payments, newest first',
  query: declinesQuery,
  paging: 'rows',
  answers: ok(
    'A page.',
    schemas.page('DeclinePage', schemas.declineSchema, 'Declined payments, newest first'),
  ),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const { data, pageInfo } = paginate(
        await listDeclines(deps.reads.pool, declineFilterOf(query), page),
        page,
      );
      res.json(list(data.map(presentDecline), pageInfo));
    },
});
