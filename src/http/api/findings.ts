import express, { type Router } from 'express';
import { listFindings } from '../../db/listFindings.ts';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';

const STATUSES = new Set(['open', 'resolved']);

export function findingRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/findings', async (req, res) => {
    const { code, status, subject_id: subjectId } = req.query;
    if (status !== undefined && !STATUSES.has(String(status))) {
      throw new HttpError(400, 'invalid_parameter', 'status must be open or resolved');
    }
    const page = pageFromQuery(req.query);
    const rows = await listFindings(
      deps.pool,
      {
        code: typeof code === 'string' ? code : undefined,
        status: typeof status === 'string' ? status : undefined,
        subjectId: typeof subjectId === 'string' ? subjectId : undefined,
      },
      page,
    );
    const { data, pageInfo } = paginate(rows, page);
    res.json(list(data.map(presentFinding), pageInfo));
  });
  return router;
}

/** The contract shape: ids are `fnd_`-prefixed like the provider's. */
export function presentFinding(row: Record<string, unknown>) {
  return { ...row, id: `fnd_${row.id}` };
}
