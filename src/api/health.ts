import { z } from 'zod';
import { errorBody } from './errors.ts';
import { ok, refused, route } from './routes/route.ts';

export const liveRoute = route({
  method: 'get',
  path: '/healthz',
  tag: 'Health',
  auth: 'none',
  summary: 'The process is up',
  answers: ok('Up.', z.strictObject({ status: z.literal('ok') })),
  handler: () => (_req, res) => {
    res.json({ status: 'ok' });
  },
});

export const readyRoute = route({
  method: 'get',
  path: '/readyz',
  tag: 'Health',
  auth: 'none',
  summary: 'The database is reachable',
  answers: {
    ...ok('Ready.', z.strictObject({ status: z.literal('ready') })),
    503: refused('The database is not reachable.'),
  },
  handler: (deps) => async (_req, res) => {
    const reachable = await deps.pool.query('select 1').then(
      () => true,
      () => false,
    );
    if (reachable) res.json({ status: 'ready' });
    else res.status(503).json(errorBody('database_unreachable', 'database is not reachable'));
  },
});
