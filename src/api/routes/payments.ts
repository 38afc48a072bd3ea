import { z } from 'zod';
import { readPaymentDetails } from '../../projection/paymentDetails.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { pathId } from './params.ts';
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
