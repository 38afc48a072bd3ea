import express, { type Router } from 'express';
import { z } from 'zod';
import { listDisputes } from '../../projection/readQueries.ts';
import type { AppDeps } from '../deps.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { parseQuery, text } from './params.ts';

// Statuses stay free text: the provider's are kept verbatim, including ones the seed does not name.
export const disputesQuery = z.object({ status: text().optional(), account_id: text().optional() });

/** GET /api/disputes?status=&account_id=, newest first, in the provider's list envelope. */
export function disputeRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/disputes', async (req, res) => {
    const { status, account_id: accountId } = parseQuery(disputesQuery, req.query);
    const page = pageFromQuery(req.query);
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
  });
  return router;
}
