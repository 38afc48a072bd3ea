import type { Response } from 'express';
import { z } from 'zod';
import { type PayoutDetail, readPayoutDetail } from '../../projection/payouts/payoutDetail.ts';
import { listPayouts, type PayoutFilter } from '../../projection/payouts/payoutReadQueries.ts';
import { renderPayoutCsv } from '../../reports/payoutCsv.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { paginateByKey } from './keyPagination.ts';
import { parseParams, parseQuery, pathId, storableText } from './params.ts';
import { notFound, ok, type RouteDeps, route, text } from './route.ts';

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
  status: storableText().optional(),
  account_id: storableText().optional(),
  deposits_after: instant().optional(),
  deposits_before: instant().optional(),
});

/** The list filter of a parsed query: deposits_at in [deposits_after, deposits_before). */
function payoutFilterFrom(parsed: z.output<typeof payoutsQuery>): PayoutFilter {
  return {
    status: parsed.status,
    accountId: parsed.account_id,
    depositsAfter: parsed.deposits_after,
    depositsBefore: parsed.deposits_before,
  };
}

/** The list filter of a console query, and the parsed query. */
export function payoutFilterOf(query: unknown): {
  filter: PayoutFilter;
  query: z.output<typeof payoutsQuery>;
} {
  const parsed = parseQuery(payoutsQuery, query);
  return { query: parsed, filter: payoutFilterFrom(parsed) };
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

export const payoutsRoute = route({
  method: 'get',
  path: '/api/payouts',
  tag: 'Payouts',
  auth: 'read',
  summary: "Payouts, newest first (by the provider's created_at, then id)",
  description: '`deposits_after` is inclusive, `deposits_before` exclusive; a date is its start in UTC.',
  query: payoutsQuery,
  paging: 'keys',
  answers: ok('A page of payouts.', schemas.page('PayoutPage', schemas.payoutSchema, 'A page of payouts.')),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const filter = payoutFilterFrom(query);
      const { data, pageInfo } = paginateByKey(await listPayouts(deps.reads.pool, filter, page), page);
      res.json(list(data, pageInfo));
    },
});

async function readPayout(deps: RouteDeps, id: string) {
  const payout = await readPayoutDetail(deps.reads.pool, id);
  if (!payout) throw new HttpError(404, 'resource_not_found', 'id: no payout with that id');
  return payout;
}

export const payoutCsvRoute = route({
  method: 'get',
  path: '/api/payouts/{id}.csv',
  tag: 'Payouts',
  auth: 'read',
  summary: "A payout's lines as CSV, one row per line",
  params: payoutParams,
  answers: {
    200: { description: 'The CSV file.', content: { 'text/csv': text } },
    ...notFound('payout'),
  },
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      sendPayoutCsv(res, await readPayout(deps, params.id));
    },
});

export const payoutRoute = route({
  method: 'get',
  path: '/api/payouts/{id}',
  tag: 'Payouts',
  auth: 'read',
  summary: 'A payout with every line and its check',
  params: payoutParams,
  answers: {
    ...ok(
      'The payout.',
      schemas.single('PayoutEnvelope', 'payout', schemas.payoutDetailSchema, 'One payout.'),
    ),
    ...notFound('payout'),
  },
  handler:
    (deps) =>
    async (_req, res, { params }) => {
      const payout = await readPayout(deps, params.id);
      res.json(single('payout', payout.id, payout));
    },
});
