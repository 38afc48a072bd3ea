import { z } from 'zod';
import { listPaymentIds, readPaymentDetails } from '../../projection/readQueries.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { list, single } from './envelope.ts';
import { paginateByKey } from './keyPagination.ts';
import { pathId, storableText } from './params.ts';
import { instant } from './payouts.ts';
import { notFound, ok, route } from './route.ts';

export const paymentRoute = route({
  method: 'get',
  path: '/api/payments/{id}',
  tag: 'Payments',
  auth: 'read',
  summary: 'A payment with its fees, refunds, returned fees and findings',
  params: z.object({ id: pathId() }),
  answers: {
    ...ok(
      'The payment.',
      schemas.single('PaymentEnvelope', 'payment', schemas.paymentSchema, 'One payment.'),
    ),
    ...notFound('payment'),
  },
  handler:
    (deps) =>
    async (_req, res, { params: { id } }) => {
      const payment = (await readPaymentDetails(deps.reads.pool, [id])).get(id);
      if (!payment) throw new HttpError(404, 'resource_not_found', 'no payment with that id');
      res.json(single('payment', id, payment));
    },
});

// Statuses stay free text: the provider's are kept verbatim, including ones the seed does not name.
export const paymentsQuery = z.object({
  account_id: storableText().optional(),
  status: storableText().optional(),
  updated_after: instant().optional(),
});

/** GET /api/payments: every payment, each as GET /api/payments/:id shows it, for a consumer's full resync. */
export const paymentsRoute = route({
  method: 'get',
  path: '/api/payments',
  tag: 'Payments',
  auth: 'read',
  summary: 'Payments by id, descending, each as GET /api/payments/{id} shows it',
  description:
    '`updated_after` (inclusive; a date is its start in UTC) selects payments whose shown snapshot is that recent. A page holds its place by id, so paging through while payments change misses none.',
  query: paymentsQuery,
  paging: 'keys',
  answers: ok(
    'A page of payments.',
    schemas.page('PaymentPage', schemas.paymentSchema, 'A page of payments.'),
  ),
  handler:
    (deps) =>
    async (_req, res, { query, page }) => {
      const filter = { accountId: query.account_id, status: query.status, updatedAfter: query.updated_after };
      const ids = await listPaymentIds(deps.reads.pool, filter, page);
      const { data, pageInfo } = paginateByKey(
        ids.map((id) => ({ id })),
        page,
      );
      const shown = await readPaymentDetails(
        deps.reads.pool,
        data.map((row) => row.id),
      );
      res.json(
        list(
          data.flatMap((row) => shown.get(row.id) ?? []),
          pageInfo,
        ),
      );
    },
});
