import express, { type Router } from 'express';
import { z } from 'zod';
import { listFindings } from '../../findings/queries.ts';
import type { AppDeps } from '../deps.ts';
import { list } from './envelope.ts';
import { pageFromQuery, paginate } from './pagination.ts';
import { oneOf, parseQuery, text } from './params.ts';

const findingsQuery = z.object({
  code: text().optional(),
  status: oneOf(['open', 'resolved']).optional(),
  subject_id: text().optional(),
});

export function findingRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/findings', async (req, res) => {
    const { code, status, subject_id: subjectId } = parseQuery(findingsQuery, req.query);
    const page = pageFromQuery(req.query);
    const rows = await listFindings(deps.pool, { code, status, subjectId }, page);
    const { data, pageInfo } = paginate(rows, page);
    res.json(list(data.map(presentFinding), pageInfo));
  });
  return router;
}

/** The contract shape: ids are `fnd_`-prefixed like the provider's. */
export function presentFinding(row: Record<string, unknown>) {
  return { ...row, id: `fnd_${row.id}` };
}
