import express, { type Router } from 'express';
import { readPayoutDetail } from '../../projection/payouts/payoutDetail.ts';
import { listPayouts } from '../../projection/payouts/payoutReadQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { keyPageFromQuery, paginateByKey } from '../routes/keyPagination.ts';
import { undecodablePathParam } from '../routes/params.ts';
import { payoutFilterOf, payoutPathOf, payoutsQuery, sendPayoutCsv } from '../routes/payouts.ts';
import { pageLinks, renderPage } from './render.ts';

// The statuses the provider documents, offered in the filter; the list shows any other verbatim.
const STATUSES = ['scheduled', 'in_transit', 'paid', 'failed', 'canceled', 'forwarded'];

/** The payouts list (the API's filters and cursors) and one payout with its lines, checks and bank credit. */
export function payoutPages(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/payouts', async (req, res) => {
    const { filter } = payoutFilterOf(req.query);
    const page = keyPageFromQuery(req.query);
    const { data, pageInfo } = paginateByKey(await listPayouts(deps.reads.pool, filter, page), page);
    // The filter as given (already checked), to fill the form again.
    const form = Object.fromEntries(
      Object.keys(payoutsQuery.shape).map((name) => {
        const value = req.query[name];
        return [name, typeof value === 'string' ? value : ''];
      }),
    );
    renderPage(req, res, 'payouts', {
      payouts: data,
      form,
      statuses: STATUSES,
      links: pageLinks(req, pageInfo),
    });
  });
  router.get('/payouts/:id', async (req, res) => {
    const { id, csv } = payoutPathOf(req.params);
    const payout = id === null ? null : await readPayoutDetail(deps.reads.pool, id);
    if (!payout) throw new HttpError(404, 'resource_not_found', 'No payout with that id.');
    if (!csv) {
      renderPage(req, res, 'payout', { payout });
      return;
    }
    // Downloads with the console's session: a browser sends no bearer token to /api/payouts.
    sendPayoutCsv(res, payout);
  });
  router.use(undecodablePathParam('id'));
  return router;
}
