import express, { type Router } from 'express';
import { listAchReturns } from '../../db/listAchReturns.ts';
import { listAlerts } from '../../db/listAlerts.ts';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** GET /api/alerts and GET /api/ach-returns, in the provider's list envelope. */
export function opsSignalRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/alerts', async (req, res) => {
    const page = pageFromQuery(req.query);
    const rows = await listAlerts(
      deps.pool,
      { status: text(req.query.status), kind: text(req.query.kind) },
      page,
    );
    const { data, pageInfo } = paginate(rows, page);
    res.json(
      list(
        data.map((row) => ({ ...row, id: `alt_${row.id}` })),
        pageInfo,
      ),
    );
  });
  router.get('/ach-returns', async (req, res) => {
    const late = text(req.query.late);
    if (late !== undefined && late !== 'true' && late !== 'false') {
      throw new HttpError(400, 'invalid_parameter', 'late must be true or false');
    }
    const page = pageFromQuery(req.query);
    const filter = {
      code: text(req.query.code),
      category: text(req.query.category),
      late: late === undefined ? undefined : late === 'true',
      accountId: text(req.query.account_id),
    };
    const { data, pageInfo } = paginate(await listAchReturns(deps.pool, filter, page), page);
    res.json(
      list(
        data.map((row) => ({ ...row, id: `fnd_${row.id}` })),
        pageInfo,
      ),
    );
  });
  return router;
}
