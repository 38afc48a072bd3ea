import express, { type Router } from 'express';
import { z } from 'zod';
import { presentDecline } from '../../declines/presentDecline.ts';
import { findDeclineOfPayment } from '../../declines/queries.ts';
import { calculateFee } from '../../domain/feeFormula.ts';
import { listFeeConfigurationsOfPayment } from '../../feeConfigurations/readQueries.ts';
import { listFindings } from '../../findings/readQueries.ts';
import { listPaymentTimeline } from '../../ingest/timelineQueries.ts';
import { listPayoutLinesOfPayment } from '../../projection/payouts/payoutReadQueries.ts';
import { findPaymentDetail } from '../../projection/readQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { parseParams, pathId, undecodablePathParam } from '../routes/params.ts';
import { renderPage } from './render.ts';

const FINDINGS_PAGE = { limit: 500, afterId: null, beforeId: null };

/** One payment: its timeline of deliveries, projection, fee check, refunds and returned fees, payouts, disputes, findings. */
export function paymentPage(deps: AppDeps): Router {
  const router = express.Router();
  router.get('/payments/:id', async (req, res) => {
    const { id } = parseParams(z.object({ id: pathId() }), req.params);
    const detail = await findPaymentDetail(deps.reads.pool, id);
    if (!detail) throw new HttpError(404, 'resource_not_found', 'no payment with that id');
    const [timeline, configurations, findings, payoutLines, decline] = await Promise.all([
      listPaymentTimeline(deps.reads.pool, id),
      listFeeConfigurationsOfPayment(deps.reads.pool, id),
      listFindings(deps.reads.pool, { paymentId: id }, FINDINGS_PAGE),
      listPayoutLinesOfPayment(deps.reads.pool, id),
      findDeclineOfPayment(deps.reads.pool, id),
    ]);
    renderPage(req, res, 'payment', {
      id,
      detail,
      timeline,
      feeChecks: feeChecksOf(detail.payment, detail.fees, configurations),
      findings: findings.slice(0, FINDINGS_PAGE.limit),
      payoutLines,
      decline: decline && presentDecline(decline),
    });
  });
  router.use(undecodablePathParam('id'));
  return router;
}

type Row = Record<string, unknown>;

/** Each fee beside what its source configuration gives for the payment's amount, with the formula spelled out. */
function feeChecksOf(payment: Row, fees: Row[], configurations: Row[]) {
  return fees.map((fee) => {
    const configuration = configurations.find((candidate) => candidate.id === fee.source_configuration_id);
    if (!configuration) return { fee, configuration: null, expected: null, formula: null };
    const pricing = {
      variableRate: String(configuration.variable_rate),
      transactionFeeCents: Number(configuration.transaction_fee_cents),
      feeCapCents: configuration.fee_cap_cents === null ? null : Number(configuration.fee_cap_cents),
    };
    const amount = Number(payment.amount);
    const cap = pricing.feeCapCents === null ? '' : `, capped at ${pricing.feeCapCents} ¢`;
    return {
      fee,
      configuration,
      expected: calculateFee(amount, pricing),
      formula: `${amount} ¢ × ${pricing.variableRate} % + ${pricing.transactionFeeCents} ¢${cap}, rounded half-up`,
    };
  });
}
