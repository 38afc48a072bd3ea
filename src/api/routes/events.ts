import { z } from 'zod';
import { redactCardNumbers } from '../../domain/cardNumbers.ts';
import { findEvent } from '../../ingest/deliveryReadQueries.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { pathId } from './params.ts';
import { notFound, ok, route } from './route.ts';

export const eventRoute = route({
  method: 'get',
  path: '/api/events/{id}',
  tag: 'Events',
  auth: 'read',
  summary: 'A stored delivery by its event id',
  params: z.object({ id: pathId() }),
  answers: {
    ...ok('The event.', schemas.single('EventEnvelope', 'event', schemas.eventSchema, 'One event.')),
    ...notFound('event'),
  },
  handler:
    (deps) =>
    async (_req, res, { params: { id } }) => {
      const event = await findEvent(deps.reads.pool, { eventId: id });
      if (!event) throw new HttpError(404, 'resource_not_found', 'no event with that id');
      const { id: _rowId, event_id, ...rest } = event;
      // The stored body is kept as received; what the API shows has card numbers reduced to the last four.
      res.json(single('event', event_id, redactCardNumbers({ id: event_id, ...rest })));
    },
});
