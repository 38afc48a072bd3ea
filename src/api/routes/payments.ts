import { z } from 'zod';
import { listFindings } from '../../findings/queries.ts';
import { findPaymentDetail } from '../../projection/readQueries.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { presentFinding } from './findings.ts';
import { pathId } from './params.ts';
import { notFound, ok, route } from './route.ts';

// Open and resolved findings about the payment or anything of it, newest first.
const FINDINGS_PAGE = { limit: 500, afterId: null, beforeId: null };

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
      const detail = await findPaymentDetail(deps.reads.pool, id);
      if (!detail) throw new HttpError(404, 'resource_not_found', 'no payment with that id');
      // listFindings returns one row past the page (to tell if more exist); the payment shows the page.
      const findings = (await listFindings(deps.reads.pool, { paymentId: id }, FINDINGS_PAGE)).slice(
        0,
        FINDINGS_PAGE.limit,
      );
      const { payment, ...related } = detail;
      res.json(single('payment', id, { ...payment, ...related, findings: findings.map(presentFinding) }));
    },
});
