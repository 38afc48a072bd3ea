import { z } from 'zod';
import { listDisputes } from '../../projection/readQueries.ts';
import * as schemas from '../openapi/responses.ts';
import { list } from './envelope.ts';
import { paginate } from './pagination.ts';
import { storableText } from './params.ts';
import { ok, route } from './route.ts';

// Statuses stay free text: the provider's are kept verbatim, including ones the seed does not name.
export const disputesQuery = z.object({
  status: storableText().optional(),
  account_id: storableText().optional(),
});

/** GET /api/disputes?status=&account_id=, newest first, in the provider's list envelope. */
export const disputesRoute = route({
  method: 'get',
  path: '/api/disputes',
  tag: 'Payments',
  auth: 'read',
  summary: 'Disputes, newest first',
  query: disputesQuery,
  paging: 'rows',
  answers: ok('A page.', schemas.page('DisputePage', schemas.disputeSchema, 'Disputes, newest first')),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const { status, account_id: accountId } = query;
      const { data, pageInfo } = paginate(
        await listDisputes(deps.reads.pool, { status, accountId }, page),
        page,
      );
      res.json(
        list(
          data.map(({ dispute_id: disputeId, ...row }) => ({ ...row, id: disputeId })),
          pageInfo,
        ),
      );
    },
});
