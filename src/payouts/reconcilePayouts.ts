import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingRun } from '../findings/queries.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import {
  deletePayoutJudgements,
  replaceLineChecks,
  upsertPayoutReconciliations,
} from './payoutCheckQueries.ts';
import {
  findPayouts,
  listCheckedPayments,
  listPayoutLines,
  loadPaymentPayoutFacts,
  loadPaymentsWithObjects,
  type PayoutLineRow,
  type PayoutRow,
} from './payoutFactsQueries.ts';
import { checkPayoutLines, type LineCheck } from './payoutRulesLines.ts';
import { checkPaymentPayouts, type PaymentPayoutFacts } from './payoutRulesPayments.ts';
import { checkPayoutStatus } from './payoutRulesStatus.ts';
import { checkPayoutTotals } from './payoutRulesTotals.ts';

/** The settings payout reconciliation reads. */
export type PayoutSettings = Pick<Config, 'PAYOUT_EXPECTED_DAYS' | 'PAYOUT_OVERDUE_HOURS'>;

/**
 * Finding scopes (each a complete run: what it no longer reports is resolved):
 * - `payout:<id>`, rules 1 and 2 of a payout whose lines are all loaded;
 * - `payout-status:<id>`, rule 4 of any payout (a failed payout need not have its lines);
 * - `payout-payment:<payment id>`, rule 3 of one payment, whoever judges it: a payout including it, or the
 *   timeliness scan. A later payout crediting the payment resolves its `payment_not_paid_out`; a duplicate
 *   credit gone (line removed, payout failed) resolves its `payment_paid_out_twice`.
 */
export const payoutScope = (payoutId: string) => `payout:${payoutId}`;
export const payoutStatusScope = (payoutId: string) => `payout-status:${payoutId}`;
export const paymentPayoutScope = (paymentId: string) => `payout-payment:${paymentId}`;

/** Rule 4 of each payout, one run each. */
export function payoutStatusRuns(payouts: PayoutRow[], overdueHours: number, now: Date): FindingRun[] {
  return payouts.map((payout) => ({
    context: {
      scope: payoutStatusScope(payout.id),
      accountId: payout.accountId,
      currency: payout.currency,
      now,
    },
    findings: checkPayoutStatus(payout, overdueHours, now),
  }));
}

/** Rule 3 of each payment, one run each. */
export function paymentPayoutRuns(
  facts: PaymentPayoutFacts[],
  expectedDays: Record<string, number>,
  now: Date,
): FindingRun[] {
  return facts.map((payment) => ({
    context: {
      scope: paymentPayoutScope(payment.paymentId),
      accountId: payment.payment?.accountId ?? payment.credits[0]?.accountId ?? null,
      currency: payment.payment?.currency ?? payment.credits[0]?.currency ?? null,
      now,
    },
    findings: checkPaymentPayouts(payment, expectedDays, now),
  }));
}

const present = <T>(value: T | null): value is T => value !== null;

/** What one call judged: payouts with every line loaded, and those left unjudged until they are. */
export type PayoutJudgementSummary = { judged: string[]; unjudged: string[] };

/**
 * Reconciles payouts by the contract's rules 1–4 and records the findings (opening, refreshing, resolving),
 * each line's check and each payout's judgement. A payout whose lines are not all loaded is judged by rule 4
 * only and left visibly unjudged (no `payout_reconciliations` row, no line checks). The payments credited
 * (now, or at the previous judgement) are judged by rule 3. Idempotent. One repeatable-read transaction of a
 * fixed handful of queries to read, one to write, whatever the number of payouts and lines.
 */
export async function reconcilePayouts(
  pool: Pool,
  payoutIds: string[],
  now: Date,
  settings: PayoutSettings,
): Promise<PayoutJudgementSummary> {
  const ids = [...new Set(payoutIds)];
  const facts = await withTransaction(pool, async (client) => {
    // One snapshot for every query: a projection committing between two would mix a payout with other lines.
    await client.query('set transaction isolation level repeatable read, read only');
    const payouts = await findPayouts(client, ids);
    const complete = payouts.filter((payout) => payout.linesComplete);
    const lines = await listPayoutLines(
      client,
      complete.map((payout) => payout.id),
    );
    const payments = await loadPaymentsWithObjects(client, [
      ...new Set(lines.map((line) => line.paymentId).filter(present)),
    ]);
    const credited = lines.filter((line) => line.kind === 'payment').map((line) => line.paymentId);
    const previously = await listCheckedPayments(
      client,
      payouts.map((payout) => payout.id),
    );
    const paymentFacts = await loadPaymentPayoutFacts(client, [
      ...new Set([...credited.filter(present), ...previously]),
    ]);
    return { payouts, complete, lines, payments, paymentFacts };
  });

  const linesOf = new Map<string, PayoutLineRow[]>();
  for (const line of facts.lines) {
    const lines = linesOf.get(line.payoutId) ?? [];
    lines.push(line);
    linesOf.set(line.payoutId, lines);
  }
  const checks: LineCheck[] = [];
  const runs: FindingRun[] = [
    ...payoutStatusRuns(facts.payouts, settings.PAYOUT_OVERDUE_HOURS, now),
    ...paymentPayoutRuns(facts.paymentFacts, settings.PAYOUT_EXPECTED_DAYS, now),
  ];
  const reconciliations = facts.complete.map((payout) => {
    const lines = linesOf.get(payout.id) ?? [];
    const { drafts, lineChecks } = checkPayoutLines(lines, facts.payments);
    checks.push(...lineChecks);
    runs.push({
      context: { scope: payoutScope(payout.id), accountId: payout.accountId, currency: payout.currency, now },
      findings: [...checkPayoutTotals(payout, lines), ...drafts],
    });
    return {
      payoutId: payout.id,
      accountId: payout.accountId,
      judgedAt: now,
      linesChecked: lineChecks.filter((check) => check.status !== 'not_checked').length,
      linesMismatched: lineChecks.filter(
        (check) => check.status === 'mismatch' || check.status === 'payment_unknown',
      ).length,
    };
  });
  const judged = facts.complete.map((payout) => payout.id);
  const unjudged = facts.payouts.filter((payout) => !payout.linesComplete).map((payout) => payout.id);

  await withTransaction(pool, async (client) => {
    await recordFindingRuns(client, runs);
    await replaceLineChecks(client, judged, checks, now);
    await upsertPayoutReconciliations(client, reconciliations);
    await deletePayoutJudgements(client, unjudged);
  });
  return { judged, unjudged };
}
