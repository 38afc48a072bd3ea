import express, { type Router } from 'express';
import { findEvent } from '../../db/findEvent.ts';
import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';

export function eventRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/events/:id', async (req, res) => {
    const event = await findEvent(deps.pool, req.params.id);
    if (!event) throw new HttpError(404, 'resource_not_found', 'no event with that id');
    const { id: _rowId, event_id, ...rest } = event;
    // The stored body is kept as received; what the API shows has card numbers reduced to the last four.
    res.json(single('event', event_id, redactCardNumbers({ id: event_id, ...rest })));
  });
  return router;
}
