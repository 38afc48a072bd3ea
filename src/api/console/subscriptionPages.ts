import express, { type Router } from 'express';
import { z } from 'zod';
import { decodeChangeCursor } from '../../changes/changeCursor.ts';
import {
  changeSubscription,
  presentSubscriptions,
  replaySubscription,
  subscriptionDetail,
} from '../../subscriptions/manageSubscriptions.ts';
import { SUBSCRIPTION_ID } from '../../subscriptions/presentSubscription.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { requireRole } from '../routes/auth.ts';
import { oneOf, parseQuery, parseRowId } from '../routes/params.ts';
import { renderPage } from './render.ts';
import { requireCsrfToken } from './session.ts';

const noSubscription = () => new HttpError(404, 'resource_not_found', 'no subscription with that id');

function subscriptionIdOf(value: string | undefined): number {
  const id = SUBSCRIPTION_ID.test(value ?? '') ? parseRowId((value as string).slice('sub_'.length)) : null;
  if (id === null) throw noSubscription();
  return id;
}

const replayForm = z.object({ after: z.string().max(200).optional() });
const doneQuery = z.object({ done: oneOf(['enabled', 'disabled', 'replayed']).optional() });

/** Subscriptions: their state and lag, one's recent failures, and enable, disable and replay (admin). */
export function subscriptionPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/subscriptions', async (req, res) => {
    renderPage(req, res, 'subscriptions', {
      subscriptions: await presentSubscriptions(deps.reads.pool, deps.now()),
    });
  });
  router.get('/subscriptions/:id', async (req, res) => {
    const subscription = await subscriptionDetail(
      deps.reads.pool,
      subscriptionIdOf(req.params.id),
      deps.now(),
    );
    if (!subscription) throw noSubscription();
    const failures = subscription.recent_attempts
      .filter((attempt) => attempt.outcome !== 'delivered')
      .slice(0, 20);
    const { done } = parseQuery(doneQuery, req.query);
    renderPage(req, res, 'subscription', { subscription, failures, done });
  });
  const admin = [
    requireCsrfToken,
    (req: express.Request, _res: express.Response, next: express.NextFunction) => {
      requireRole('admin', req.principal as NonNullable<typeof req.principal>);
      next();
    },
  ];
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/subscriptions/:id/${action}`, ...admin, async (req, res) => {
      const id = subscriptionIdOf(req.params.id as string);
      if (!(await changeSubscription(deps.pool, id, { enabled }, deps.now()))) throw noSubscription();
      deps.log.info(
        { subscription: `sub_${id}`, enabled, actor: req.principal?.name },
        'subscription changed from the console',
      );
      res.redirect(303, `/console/subscriptions/sub_${id}?done=${enabled ? 'enabled' : 'disabled'}`);
    });
  }
  router.post('/subscriptions/:id/replay', ...admin, async (req, res) => {
    const id = subscriptionIdOf(req.params.id as string);
    const { after } = parseQuery(replayForm, req.body);
    const afterSeq = after ? decodeChangeCursor(after.trim()) : 0;
    if (afterSeq === null)
      throw new HttpError(422, 'invalid_cursor', 'after: is not a cursor of GET /api/changes');
    if (!(await subscriptionDetail(deps.pool, id, deps.now()))) throw noSubscription();
    const queued = await replaySubscription(deps.pool, id, afterSeq, deps.now());
    deps.log.info(
      { subscription: `sub_${id}`, queued, actor: req.principal?.name },
      'subscription replayed from the console',
    );
    res.redirect(303, `/console/subscriptions/sub_${id}?done=replayed`);
  });
  return router;
}
