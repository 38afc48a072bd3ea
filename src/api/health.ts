import express, { type Router } from 'express';
import type { AppDeps } from './deps.ts';
import { errorBody } from './errors.ts';

export function healthRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const reachable = await deps.pool.query('select 1').then(
      () => true,
      () => false,
    );
    if (reachable) res.json({ status: 'ready' });
    else res.status(503).json(errorBody('database_unreachable', 'database is not reachable'));
  });
  return router;
}
