import { z } from 'zod';
import { findingIdText } from '../../findings/findingId.ts';
import { listAchReturns } from '../../findings/readQueries.ts';
import { listAlerts } from '../../ops/queries.ts';
import * as schemas from '../openapi/responses.ts';
import { list } from './envelope.ts';
import { paginate } from './pagination.ts';
import { booleanWord, oneOf, storableText } from './params.ts';
import { ok, route } from './route.ts';

export const alertsQuery = z.object({
  status: oneOf(['pending', 'sent', 'failed', 'logged']).optional(),
  kind: storableText().optional(),
});

// Codes and categories stay free text: unknown return codes are kept verbatim (category `unknown`).
export const achReturnsQuery = z.object({
  code: storableText().optional(),
  category: storableText().optional(),
  late: booleanWord().optional(),
  account_id: storableText().optional(),
});

/** The filter of a parsed ACH returns query. */
export function achReturnFilterOf({ account_id: accountId, ...rest }: z.output<typeof achReturnsQuery>) {
  return { ...rest, accountId };
}

export const alertsRoute = route({
  method: 'get',
  path: '/api/alerts',
  tag: 'Operations',
  auth: 'read',
  summary: 'Ops alerts, newest first',
  query: alertsQuery,
  paging: 'rows',
  answers: ok('A page.', schemas.page('AlertPage', schemas.alertSchema, 'Ops alerts, newest first')),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const rows = await listAlerts(deps.reads.pool, query, page);
      const { data, pageInfo } = paginate(rows, page);
      res.json(
        list(
          data.map((row) => ({ ...row, id: `alt_${row.id}` })),
          pageInfo,
        ),
      );
    },
});

export const achReturnsRoute = route({
  method: 'get',
  path: '/api/ach-returns',
  tag: 'Findings',
  auth: 'read',
  summary: 'ACH returns, newest first',
  query: achReturnsQuery,
  paging: 'rows',
  answers: ok('A page.', schemas.page('AchReturnPage', schemas.achReturnSchema, 'ACH returns, newest first')),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const filter = achReturnFilterOf(query);
      const { data, pageInfo } = paginate(await listAchReturns(deps.reads.pool, filter, page), page);
      res.json(
        list(
          data.map((row) => ({ ...row, id: findingIdText(row.id) })),
          pageInfo,
        ),
      );
    },
});
