import express, { type Router } from 'express';
import { findPaymentDetail } from '../../db/findPaymentDetail.ts';
import type { AppDeps } from '../app.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';

export function paymentRoutes(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/payments/:id', async (req, res) => {
    const detail = await findPaymentDetail(deps.pool, req.params.id);
    if (!detail) throw new HttpError(404, 'resource_not_found', 'no payment with that id');
    const { payment, ...related } = detail;
    res.json(single('payment', req.params.id, { ...payment, ...related }));
  });
  return router;
}
