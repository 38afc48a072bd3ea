import express, { type Router } from 'express';
import { z } from 'zod';
import { listAchReturns } from '../../findings/queries.ts';
import { listAlerts } from '../../ops/queries.ts';
import type { AppDeps } from '../deps.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { booleanWord, oneOf, parseQuery, text } from './params.ts';

export const alertsQuery = z.object({
  status: oneOf(['pending', 'sent', 'failed', 'logged']).optional(),
  kind: text().optional(),
});

// Codes and categories stay free text: unknown return codes are kept verbatim (category `unknown`).
export const achReturnsQuery = z.object({
  code: text().optional(),
  category: text().optional(),
  late: booleanWord().optional(),
  account_id: text().optional(),
});

/** GET /api/alerts and GET /api/ach-returns, in the provider's list envelope. */
export function opsSignalRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/alerts', async (req, res) => {
    const filter = parseQuery(alertsQuery, req.query);
    const page = pageFromQuery(req.query);
    const rows = await listAlerts(deps.reads.pool, filter, page);
    const { data, pageInfo } = paginate(rows, page);
    res.json(
      list(
        data.map((row) => ({ ...row, id: `alt_${row.id}` })),
        pageInfo,
      ),
    );
  });
  router.get('/ach-returns', async (req, res) => {
    const { account_id: accountId, ...rest } = parseQuery(achReturnsQuery, req.query);
    const page = pageFromQuery(req.query);
    const filter = { ...rest, accountId };
    const { data, pageInfo } = paginate(await listAchReturns(deps.reads.pool, filter, page), page);
    res.json(
      list(
        data.map((row) => ({ ...row, id: `fnd_${row.id}` })),
        pageInfo,
      ),
    );
  });
  return router;
}
