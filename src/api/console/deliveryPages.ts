import express, { type Router } from 'express';
import { z } from 'zod';
import { dayRange } from '../../domain/days.ts';
import { findEvent, listDeliveries } from '../../ingest/deliveryReadQueries.ts';
import { queueForProcessing } from '../../projection/eventQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { requireRole } from '../routes/auth.ts';
import { pageFromQuery, paginate } from '../routes/pagination.ts';
import { calendarDate, oneOf, parseQuery, parseRowId, storableText } from '../routes/params.ts';
import { pageLinks, renderPage } from './render.ts';
import { requireCsrfToken } from './session.ts';

const deliveriesQuery = z.object({
  event_id: storableText().optional(),
  event_name: storableText().optional(),
  account_id: storableText().optional(),
  status: oneOf(['received', 'processed', 'failed', 'quarantined']).optional(),
  from: calendarDate().optional(),
  to: calendarDate().optional(),
});

function deliveryIdOf(value: string | undefined): number {
  const id = parseRowId(value ?? '');
  if (id === null) throw new HttpError(404, 'resource_not_found', 'no delivery with that id');
  return id;
}

/** Deliveries: search, one delivery's headers and redacted body, and re-processing one (admin). */
export function deliveryPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/deliveries', async (req, res) => {
    const query = parseQuery(deliveriesQuery, req.query);
    const page = pageFromQuery(req.query);
    const filter = {
      eventId: query.event_id,
      eventName: query.event_name,
      accountId: query.account_id,
      status: query.status,
      ...dayRange(query.from, query.to),
    };
    const { data, pageInfo } = paginate(await listDeliveries(deps.reads.pool, filter, page), page);
    renderPage(req, res, 'deliveries', { deliveries: data, query, links: pageLinks(req, pageInfo) });
  });
  router.get('/deliveries/:id', async (req, res) => {
    const delivery = await findEvent(deps.reads.pool, { rowId: deliveryIdOf(req.params.id) });
    if (!delivery) throw new HttpError(404, 'resource_not_found', 'no delivery with that id');
    renderPage(req, res, 'delivery', { delivery, queued: req.query.queued === '1' });
  });
  // A failed (or not yet processed) delivery goes back to the worker; a processed one is already in the projections.
  router.post('/deliveries/:id/reprocess', requireCsrfToken, async (req, res) => {
    requireRole('admin', req.principal as NonNullable<typeof req.principal>);
    const delivery = await findEvent(deps.pool, { rowId: deliveryIdOf(req.params.id as string) });
    if (!delivery) throw new HttpError(404, 'resource_not_found', 'no delivery with that id');
    if (delivery.status !== 'failed' && delivery.status !== 'received')
      throw new HttpError(
        409,
        'not_reprocessable',
        `only failed or unprocessed deliveries are re-processed; this one is ${delivery.status}`,
      );
    await queueForProcessing(deps.pool, delivery.id);
    deps.log.info(
      { deliveryId: delivery.id, actor: req.principal?.name },
      'delivery queued for re-processing from the console',
    );
    res.redirect(303, `/console/deliveries/${delivery.id}?queued=1`);
  });
  return router;
}
