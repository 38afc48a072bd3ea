import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import { type PayoutDetail, readPayoutDetail } from '../../payouts/payoutDetail.ts';
import { listPayouts, type PayoutFilter } from '../../payouts/payoutReadQueries.ts';
import { renderPayoutCsv } from '../../reports/payoutCsv.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { list, single } from './envelope.ts';
import { keyPageFromQuery, paginateByKey } from './keyPagination.ts';
import { parseParams, parseQuery, pathId, text, undecodablePathParam } from './params.ts';

/** A day (YYYY-MM-DD, its start in UTC) or an ISO 8601 time with its offset, as a Date. */
export function instant() {
  return z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: 'must be a date (YYYY-MM-DD) or an ISO 8601 time with its offset',
    })
    .refine((value) => !value.startsWith('0000'), 'must be a date (YYYY-MM-DD) or an ISO 8601 time')
    .transform((value) => new Date(/T/.test(value) ? value : `${value}T00:00:00.000Z`));
}

// Statuses stay free text: the provider's are kept verbatim, including ones the contract does not name.
export const payoutsQuery = z.object({
  status: text().optional(),
  account_id: text().optional(),
  deposits_after: instant().optional(),
  deposits_before: instant().optional(),
});

/** The list filter of a query: deposits_at in [deposits_after, deposits_before). */
export function payoutFilterOf(query: unknown): {
  filter: PayoutFilter;
  query: z.output<typeof payoutsQuery>;
} {
  const parsed = parseQuery(payoutsQuery, query);
  return {
    query: parsed,
    filter: {
      status: parsed.status,
      accountId: parsed.account_id,
      depositsAfter: parsed.deposits_after,
      depositsBefore: parsed.deposits_before,
    },
  };
}

export const payoutParams = z.object({ id: pathId() });

/** The payout a path names (`po_…`, or `po_….csv` for its lines as CSV); an id is never empty. */
export function payoutPathOf(params: unknown): { id: string | null; csv: boolean } {
  const { id } = parseParams(payoutParams, params);
  const csv = id.endsWith('.csv');
  const bare = csv ? id.slice(0, -'.csv'.length) : id;
  return { id: bare === '' ? null : bare, csv };
}

/** Sends a payout's lines as its CSV statement, one row per line, as a download. */
export function sendPayoutCsv(res: Response, payout: PayoutDetail): void {
  res.type('text/csv; charset=utf-8').attachment(`payout-${payout.id}.csv`);
  for (const line of renderPayoutCsv(payout)) res.write(line);
  res.end();
}

/** GET /api/payouts, /api/payouts/:id and /api/payouts/:id.csv (one row per line: the accounting file). */
export function payoutRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/payouts', async (req, res) => {
    const { filter } = payoutFilterOf(req.query);
    const page = keyPageFromQuery(req.query);
    const { data, pageInfo } = paginateByKey(await listPayouts(deps.reads.pool, filter, page), page);
    res.json(list(data, pageInfo));
  });
  router.get('/payouts/:id', async (req, res) => {
    const { id, csv } = payoutPathOf(req.params);
    const payout = id === null ? null : await readPayoutDetail(deps.reads.pool, id);
    if (!payout) throw new HttpError(404, 'resource_not_found', 'id: no payout with that id');
    if (!csv) {
      res.json(single('payout', payout.id, payout));
      return;
    }
    sendPayoutCsv(res, payout);
  });
  router.use(undecodablePathParam('id'));
  return router;
}
