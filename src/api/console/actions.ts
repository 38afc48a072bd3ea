import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { changeFinding, changeFindingsByFilter, WorkflowError } from '../../findings/changeFindings.ts';
import type { WorkflowAction } from '../../findings/workflow.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { requireRole } from '../routes/auth.ts';
import { findingIdOf } from '../routes/findingAnswers.ts';
import { findingFilterOf } from '../routes/findingFilter.ts';
import { noteBody, oneOf, parseQuery } from '../routes/params.ts';
import { requireCsrfToken } from './session.ts';

const ACTION_OF_FORM = new Map<string, WorkflowAction>([
  ['acknowledge', 'acknowledge'],
  ['accept', 'accept'],
  ['reopen', 'reopen'],
  ['notes', 'note'],
]);

const bulkForm = z.object({ action: oneOf(['acknowledge', 'accept']) });

/** The finding workflow from the console's forms (admin only, CSRF-checked), one finding or in bulk. */
export function findingActions(deps: AppDeps): Router {
  const router = express.Router();
  // Only on these routes: a GET that no page matched passes through to the console's 404.
  const guards: RequestHandler[] = [
    requireCsrfToken,
    (req, _res, next) => {
      requireRole('admin', req.principal as NonNullable<typeof req.principal>);
      next();
    },
  ];

  router.post('/findings/bulk', ...guards, async (req, res) => {
    const { filter, query } = findingFilterOf(req.body);
    const { action } = parseQuery(bulkForm, req.body);
    const { note } = parseQuery(noteBody, req.body);
    const request = { action, note: note || null, actor: req.principal?.name as string, at: deps.now() };
    let changed: number;
    try {
      changed = await changeFindingsByFilter(deps.pool, filter, request);
    } catch (err) {
      if (err instanceof WorkflowError) throw new HttpError(422, err.reason, err.message);
      throw err;
    }
    const back = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    back.set('changed', String(changed));
    res.redirect(303, `/console/findings?${back}`);
  });

  router.post('/findings/:id/:action', ...guards, async (req, res) => {
    const action = ACTION_OF_FORM.get(req.params.action as string);
    if (!action) throw new HttpError(404, 'resource_not_found', 'no such action');
    const id = findingIdOf(req.params.id as string);
    const { note } = parseQuery(noteBody, req.body);
    await changeFinding(deps.pool, id, {
      action,
      note: note || null,
      actor: req.principal?.name as string,
      at: deps.now(),
    });
    res.redirect(303, `/console/findings/fnd_${id}`);
  });
  return router;
}
