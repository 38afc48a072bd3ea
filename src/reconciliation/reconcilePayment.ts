import { configSchema } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingDraft } from '../findings/findings.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import { checkAchReturn } from './achReturns.ts';
import { checkCheckoutFees } from './checkoutFeeRules.ts';
import { loadCardDeclines } from './declineQueries.ts';
import { cardDeclineRuns, checkRetryAgainstAdvice } from './declineRules.ts';
import { checkDisputes } from './disputeRules.ts';
import { checkFeeConfigurations } from './feeConfigurationRules.ts';
import { checkFeeTotal, checkPlatformFee, countFeeChecks } from './feeRules.ts';
import { loadPaymentFacts, type PaymentFacts, type UnknownPaymentFacts } from './queries.ts';
import { checkFeeRemaining, checkRefundTotal, checkReturnedFees } from './refundRules.ts';
import {
  findProjectedVersions,
  type PaymentReconciliation,
  recordReconciledVersions,
  upsertPaymentReconciliations,
} from './stateQueries.ts';

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
  checkRetryAgainstAdvice,
];

/** Settings of the decline rules: more declines of one card than `alertCount` within 24 h is a finding. */
export type DeclineSettings = { alertCount: number };

const CONFIGURED_DEFAULT: DeclineSettings = {
  alertCount: configSchema.shape.DECLINE_ALERT_COUNT.parse(undefined),
};

type Run = {
  paymentId: string;
  /** The projected version the facts were read at. */
  version: number;
  /** Undefined when there is nothing to reconcile yet (a refund before its payment). */
  accountId: string | undefined;
  findings: FindingDraft[];
  currency: string | null;
  /** Only for a known payment: what its fee checks could not verify. */
  counts: Pick<PaymentReconciliation, 'overrides' | 'unverified'> | null;
};

// Pure: the rules over one payment's facts.
function runRules(paymentId: string, facts: PaymentFacts | UnknownPaymentFacts, version: number): Run {
  const accountId = facts.payment?.accountId ?? facts.disputes[0]?.accountId;
  if (facts.payment === null)
    return { paymentId, version, accountId, findings: checkDisputes(facts), currency: null, counts: null };
  return {
    paymentId,
    version,
    accountId,
    findings: PAYMENT_RULES.flatMap((rule) => rule(facts)),
    currency: facts.payment.currency,
    counts: countFeeChecks(facts),
  };
}

/**
 * Reconciles payments, each by its fees against the fee configurations of its sub account, its refunds and
 * returned fees, an ACH return, the fees set on its checkout, its disputes, and a charge of its card against
 * an earlier decline's advice. Records each result as that payment's findings (opening, refreshing and
 * resolving), with the projected version it read (see `payment_reconciliation_states`), and the repeated
 * declines of each payment's card as that card's (scope `card:<key>`). A dispute can arrive before its
 * payment: its findings are recorded even then. Idempotent. One read and one write transaction, of a fixed handful of statements, for all of them.
 */
export async function reconcilePayments(
  pool: Pool,
  paymentIds: string[],
  now: Date,
  declineSettings: DeclineSettings = CONFIGURED_DEFAULT,
): Promise<void> {
  const ids = [...new Set(paymentIds)];
  const { runs, cards } = await withTransaction(pool, async (client) => {
    // One snapshot for every query of the load: a projection committing between two would mix snapshots.
    await client.query('set transaction isolation level repeatable read, read only');
    const facts = await loadPaymentFacts(client, ids);
    const versions = await findProjectedVersions(client, ids);
    const cards = await loadCardDeclines(client, ids);
    return {
      runs: ids.map((id) =>
        runRules(id, facts.get(id) ?? { payment: null, disputes: [] }, versions.get(id) ?? 0),
      ),
      cards,
    };
  });

  await withTransaction(pool, async (client) => {
    // A run overtaken by a newer one (a worker presumed dead that was only slow) leaves the newer findings be;
    // a payment with nothing to reconcile yet has been seen all the same.
    const newest = await recordReconciledVersions(client, runs, now);
    const recorded = runs.flatMap((run) =>
      newest.has(run.paymentId) && run.accountId !== undefined ? [{ ...run, accountId: run.accountId }] : [],
    );
    // The cards of the payments recorded: an overtaken run says nothing about its card either.
    const cardKeys = recorded.flatMap((run) => cards.cardKeyOf.get(run.paymentId) ?? []);
    await recordFindingRuns(client, [
      ...recorded.map((run) => ({
        context: { scope: `payment:${run.paymentId}`, accountId: run.accountId, currency: run.currency, now },
        findings: run.findings,
      })),
      ...cardDeclineRuns(cardKeys, cards.declines, declineSettings.alertCount, now),
    ]);
    await upsertPaymentReconciliations(
      client,
      recorded.flatMap(({ paymentId, accountId, counts }) =>
        counts === null ? [] : [{ paymentId, accountId, reconciledAt: now, ...counts }],
      ),
    );
  });
}

/**
 * `reconcilePayments` for a job batch: if the batch fails as a whole, each payment is reconciled on its own,
 * so only the ones that fail alone get their error. Per payment, in order: its error, or null.
 */
export async function reconcileEachPayment(
  pool: Pool,
  paymentIds: string[],
  now: Date,
  declineSettings: DeclineSettings = CONFIGURED_DEFAULT,
): Promise<unknown[]> {
  try {
    await reconcilePayments(pool, paymentIds, now, declineSettings);
    return paymentIds.map(() => null);
  } catch (err) {
    if (paymentIds.length === 1) return [err];
  }
  const errors: unknown[] = [];
  for (const paymentId of paymentIds)
    errors.push(
      await reconcilePayments(pool, [paymentId], now, declineSettings).then(
        () => null,
        (err: unknown) => err,
      ),
    );
  return errors;
}
