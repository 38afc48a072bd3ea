import express, { type Router } from 'express';
import { z } from 'zod';
import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import { findEvent } from '../../ingest/deliveryReadQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';
import { parseParams, pathId, undecodablePathParam } from './params.ts';

export const eventParams = z.object({ id: pathId() });

export function eventRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/events/:id', async (req, res) => {
    const { id } = parseParams(eventParams, req.params);
    const event = await findEvent(deps.reads.pool, { eventId: id });
    if (!event) throw new HttpError(404, 'resource_not_found', 'no event with that id');
    const { id: _rowId, event_id, ...rest } = event;
    // The stored body is kept as received; what the API shows has card numbers reduced to the last four.
    res.json(single('event', event_id, redactCardNumbers({ id: event_id, ...rest })));
  });
  router.use(undecodablePathParam('id'));
  return router;
}
