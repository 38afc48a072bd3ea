import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { BULK_LIMIT } from '../../findings/changeFindings.ts';
import { FINDING_ORDERS, listFindings } from '../../findings/readQueries.ts';
import { FINDING_STATUSES } from '../../findings/workflow.ts';
import { countEventsByStatus } from '../../ingest/deliveryReadQueries.ts';
import { readOverview } from '../../ops/overviewQueries.ts';
import { countJobsByQueue } from '../../queue/jobCounts.ts';
import { summarizeReconciliationLag } from '../../reconciliation/stateQueries.ts';
import { sumOpenFindings } from '../../reports/findingQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { findingIdOf, findingWithHistory } from '../routes/findingAnswers.ts';
import { findingFilterOf, findingFilterQuery } from '../routes/findingFilter.ts';
import { pageFromQuery, paginate } from '../routes/pagination.ts';
import { oneOf, parseQuery, storableText } from '../routes/params.ts';
import { pageLinks, renderPage } from './render.ts';

/** The console's overview, findings list and one finding with its workflow. */
export function findingPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/', async (req, res) => {
    const now = deps.now();
    const [overview, events, openFindings, jobs, lag] = await Promise.all([
      readOverview(deps.reads.pool, now),
      countEventsByStatus(deps.reads.pool),
      sumOpenFindings(deps.reads.pool, now),
      countJobsByQueue(deps.boss),
      summarizeReconciliationLag(deps.reads.pool),
    ]);
    // Jobs failed for good, per queue: the ones people must look at (reconcile-stale retries reconciliations).
    const failedJobs = Object.entries(jobs).filter(([, counts]) => counts.failed > 0);
    renderPage(req, res, 'overview', { overview, events, openFindings, failedJobs, lag, now });
  });

  router.get('/findings', async (req, res) => {
    const { filter, query } = findingFilterOf(req.query);
    const { sort } = parseQuery(z.object({ sort: oneOf(FINDING_ORDERS).optional() }), req.query);
    const page = pageFromQuery(req.query);
    const { data, pageInfo } = paginate(await listFindings(deps.reads.pool, filter, page, sort), page);
    renderPage(req, res, 'findings', {
      findings: data,
      query,
      sort: sort ?? 'newest',
      sortQuery: new URLSearchParams([...filterFields(req), ['sort', 'at_stake']]).toString(),
      statuses: FINDING_STATUSES,
      links: pageLinks(req, pageInfo),
      bulkLimit: BULK_LIMIT,
      filterFields: filterFields(req),
      changed: req.query.changed,
    });
  });

  router.get('/findings/:id', async (req, res) => {
    const id = findingIdOf(req.params.id);
    renderPage(req, res, 'finding', { finding: await findingWithHistory(deps.reads.pool, id) });
  });

  // A search box: the payment page by id.
  router.get('/payments', (req, res) => {
    const { id } = parseQuery(z.object({ id: storableText().optional() }), req.query);
    if (!id) throw new HttpError(400, 'invalid_parameter', 'id: give a payment id (py_…)');
    res.redirect(303, `/console/payments/${encodeURIComponent(id)}`);
  });
  return router;
}

/** The filter of the current findings list as hidden form fields, so a bulk change applies to what is shown. */
function filterFields(req: Request): [string, string][] {
  return Object.entries(req.query).filter(
    (entry): entry is [string, string] =>
      typeof entry[1] === 'string' && Object.hasOwn(findingFilterQuery.shape, entry[0]) && entry[1] !== '',
  );
}
