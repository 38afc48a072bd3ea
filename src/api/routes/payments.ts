import express, { type Router } from 'express';
import { z } from 'zod';
import { listFindings } from '../../findings/queries.ts';
import { findPaymentDetail } from '../../projection/readQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';
import { presentFinding } from './findings.ts';
import { parseParams, pathId, undecodablePathParam } from './params.ts';

export const paymentParams = z.object({ id: pathId() });

// Open and resolved findings about the payment or anything of it, newest first.
const FINDINGS_PAGE = { limit: 500, afterId: null, beforeId: null };

export function paymentRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/payments/:id', async (req, res) => {
    const { id } = parseParams(paymentParams, req.params);
    const detail = await findPaymentDetail(deps.reads.pool, id);
    if (!detail) throw new HttpError(404, 'resource_not_found', 'no payment with that id');
    // listFindings returns one row past the page (to tell if more exist); the payment shows the page.
    const findings = (await listFindings(deps.reads.pool, { paymentId: id }, FINDINGS_PAGE)).slice(
      0,
      FINDINGS_PAGE.limit,
    );
    const { payment, ...related } = detail;
    res.json(single('payment', id, { ...payment, ...related, findings: findings.map(presentFinding) }));
  });
  router.use(undecodablePathParam('id'));
  return router;
}
