import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { recordFindings } from '../findings/recordFindings.ts';
import { checkAchReturn } from './achReturns.ts';
import { checkCheckoutFees } from './checkoutFeeRules.ts';
import { checkDisputes } from './disputeRules.ts';
import { checkFeeConfigurations } from './feeConfigurationRules.ts';
import { checkFeeTotal, checkPlatformFee, countFeeChecks } from './feeRules.ts';
import { loadPaymentFacts, type PaymentFacts, upsertPaymentReconciliation } from './queries.ts';
import { checkFeeRemaining, checkRefundTotal, checkReturnedFees } from './refundRules.ts';
import { findProjectedVersion, recordReconciledVersion } from './stateQueries.ts';

/** Every rule a known payment is reconciled by. */
const PAYMENT_RULES: ((facts: PaymentFacts) => FindingDraft[])[] = [
  checkFeeTotal,
  checkFeeConfigurations,
  checkPlatformFee,
  checkRefundTotal,
  checkReturnedFees,
  checkFeeRemaining,
  checkAchReturn,
  checkCheckoutFees,
  checkDisputes,
];

/**
 * Reconciles one payment: its fees against the fee configurations of its sub account, its refunds and
 * returned fees, an ACH return, the fees set on its checkout, and its disputes. Records the result as
 * that payment's findings (opening, refreshing and resolving), with the projected version it read (see
 * `payment_reconciliation_states`). A dispute can arrive before its payment: its findings are recorded
 * even then. Idempotent. False when the payment is not known yet.
 */
export async function reconcilePayment(pool: Pool, paymentId: string, now: Date): Promise<boolean> {
  const { facts, version } = await withTransaction(pool, async (client) => {
    // One snapshot for every query of the load: a projection committing between two would mix snapshots.
    await client.query('set transaction isolation level repeatable read, read only');
    return {
      facts: await loadPaymentFacts(client, paymentId),
      version: await findProjectedVersion(client, paymentId),
    };
  });
  const accountId = facts.payment?.accountId ?? facts.disputes[0]?.accountId;
  if (accountId === undefined) {
    // Nothing to reconcile yet (a refund before its payment): this state has been seen all the same.
    await recordReconciledVersion(pool, paymentId, version, now);
    return false;
  }
  const findings =
    facts.payment === null ? checkDisputes(facts) : PAYMENT_RULES.flatMap((rule) => rule(facts));

  await withTransaction(pool, async (client) => {
    // A run overtaken by a newer one (a worker presumed dead that was only slow) leaves the newer findings be.
    if (!(await recordReconciledVersion(client, paymentId, version, now))) return;
    const context = {
      scope: `payment:${paymentId}`,
      accountId,
      currency: facts.payment?.currency ?? null,
      now,
    };
    await recordFindings(client, context, findings);
    if (facts.payment !== null) {
      const counts = countFeeChecks(facts);
      await upsertPaymentReconciliation(client, { paymentId, accountId, reconciledAt: now, ...counts });
    }
  });
  return facts.payment !== null;
}
