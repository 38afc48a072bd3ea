import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { FindingRun } from '../findings/queries.ts';
import { recordFindingRuns } from '../findings/recordFindings.ts';
import {
  listCheckedPayments,
  loadPaymentPayoutFacts,
  type PaymentPayoutFacts,
} from './paymentPayoutQueries.ts';
import {
  deletePayoutJudgements,
  type PayoutReconciliation,
  replaceLineChecks,
  upsertPayoutReconciliations,
} from './payoutCheckQueries.ts';
import {
  findPayouts,
  listPayoutLines,
  loadPaymentsWithObjects,
  lockPayoutVersions,
  type PaymentWithObjects,
  type PayoutLineToCheck,
  type PayoutToCheck,
} from './payoutFactsQueries.ts';
import { checkPayoutLines, type LineCheck } from './payoutRulesLines.ts';
import { checkPaymentPayouts } from './payoutRulesPayments.ts';
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
const payoutScope = (payoutId: string) => `payout:${payoutId}`;
const payoutStatusScope = (payoutId: string) => `payout-status:${payoutId}`;
const paymentPayoutScope = (paymentId: string) => `payout-payment:${paymentId}`;

/** Rule 4 of each payout, one run each. */
export function payoutStatusRuns(payouts: PayoutToCheck[], overdueHours: number, now: Date): FindingRun[] {
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

/** Everything rules 1–4 read of some payouts, from one snapshot. */
export type PayoutFacts = {
  payouts: PayoutToCheck[];
  /** The lines of the payouts with every line loaded. */
  lines: PayoutLineToCheck[];
  payments: Map<string, PaymentWithObjects>;
  /** The payments the payouts with every line loaded credit, or credited at their previous judgement. */
  paymentFacts: PaymentPayoutFacts[];
};

/** Reads the facts of these payouts in one repeatable-read transaction: one query per table. */
export async function readPayoutFacts(pool: Pool, payoutIds: string[]): Promise<PayoutFacts> {
  return withTransaction(pool, async (client) => {
    // One snapshot for every query: a projection committing between two would mix a payout with other lines.
    await client.query('set transaction isolation level repeatable read, read only');
    const payouts = await findPayouts(client, [...new Set(payoutIds)]);
    const complete = payouts.filter((payout) => payout.linesComplete).map((payout) => payout.id);
    const lines = await listPayoutLines(client, complete);
    const payments = await loadPaymentsWithObjects(client, [
      ...new Set(lines.map((line) => line.paymentId).filter(present)),
    ]);
    const credited = lines.filter((line) => line.kind === 'payment').map((line) => line.paymentId);
    // Rule 3 waits for a payout's lines like rules 1 and 2: while they load (or are rebuilt), the credits of
    // its payments are not all known, and judging them would report payments in no payout.
    const previously = await listCheckedPayments(client, complete);
    const paymentFacts = await loadPaymentPayoutFacts(client, [
      ...new Set([...credited.filter(present), ...previously]),
    ]);
    return { payouts, lines, payments, paymentFacts };
  });
}

/** One payout's judgement: its runs, and with every line loaded, its line checks and counts. */
type PayoutJudgement = {
  payout: PayoutToCheck;
  runs: FindingRun[];
  lines: { checks: LineCheck[]; reconciliation: PayoutReconciliation } | null;
};

export type PayoutJudgements = { payouts: PayoutJudgement[]; paymentRuns: FindingRun[]; now: Date };

/**
 * Tally's value of a payout's lines other than the payout line, as the close counts it: a compared line at
 * what Tally expected, any other line (unknown payment, not checked) at nothing. Null without such lines.
 */
function linesValueOf(lines: PayoutLineToCheck[], checks: LineCheck[]): number | null {
  const checkOf = new Map(checks.map((check) => [check.lineId, check]));
  const valued = lines.filter((line) => line.kind !== 'payout');
  if (valued.length === 0) return null;
  return valued.reduce((sum, line) => {
    const check = checkOf.get(line.id);
    if (!check) return sum + line.net;
    return check.status === 'ok' || check.status === 'mismatch' ? sum + (check.expected ?? 0) : sum;
  }, 0);
}

/** Pure: rules 1–4 over the facts. */
export function judgePayouts(facts: PayoutFacts, settings: PayoutSettings, now: Date): PayoutJudgements {
  const linesOf = new Map<string, PayoutLineToCheck[]>();
  for (const line of facts.lines) {
    const lines = linesOf.get(line.payoutId) ?? [];
    lines.push(line);
    linesOf.set(line.payoutId, lines);
  }
  const payouts = facts.payouts.map((payout): PayoutJudgement => {
    const [statusRun] = payoutStatusRuns([payout], settings.PAYOUT_OVERDUE_HOURS, now);
    const runs = statusRun ? [statusRun] : [];
    if (!payout.linesComplete) return { payout, runs, lines: null };
    const lines = linesOf.get(payout.id) ?? [];
    const { drafts, lineChecks } = checkPayoutLines(lines, facts.payments);
    runs.push({
      context: { scope: payoutScope(payout.id), accountId: payout.accountId, currency: payout.currency, now },
      findings: [...checkPayoutTotals(payout, lines), ...drafts],
    });
    const reconciliation = {
      payoutId: payout.id,
      accountId: payout.accountId,
      judgedAt: now,
      linesChecked: lineChecks.filter((check) => check.status !== 'not_checked').length,
      linesMismatched: lineChecks.filter(
        (check) => check.status === 'mismatch' || check.status === 'payment_unknown',
      ).length,
      linesValue: linesValueOf(lines, lineChecks),
    };
    return { payout, runs, lines: { checks: lineChecks, reconciliation } };
  });
  return {
    payouts,
    paymentRuns: paymentPayoutRuns(facts.paymentFacts, settings.PAYOUT_EXPECTED_DAYS, now),
    now,
  };
}

/**
 * What one call did: payouts judged (every line loaded), payouts left unjudged until they are, and payouts
 * whose projection changed after they were read (the change queued a judgement of its own, which stands).
 */
export type PayoutJudgementSummary = { judged: string[]; unjudged: string[]; overtaken: string[] };

/**
 * Records judgements in one transaction: findings (opening, refreshing, resolving), line checks, and each
 * payout's judgement, or its removal for a payout whose lines are loading again. A payout whose projected
 * state moved since it was read is left as the newer judgement leaves it.
 */
export async function recordPayoutJudgements(
  pool: Pool,
  judgements: PayoutJudgements,
): Promise<PayoutJudgementSummary> {
  return withTransaction(pool, async (client) => {
    const versions = await lockPayoutVersions(
      client,
      judgements.payouts.map(({ payout }) => payout.id),
    );
    const current = judgements.payouts.filter(({ payout }) => versions.get(payout.id) === payout.version);
    const overtaken = judgements.payouts.filter(({ payout }) => versions.get(payout.id) !== payout.version);
    const judged = current.flatMap(({ lines }) => (lines ? [lines] : []));
    await recordFindingRuns(client, [...current.flatMap(({ runs }) => runs), ...judgements.paymentRuns]);
    await replaceLineChecks(
      client,
      judged.map(({ reconciliation }) => reconciliation.payoutId),
      judged.flatMap(({ checks }) => checks),
      judgements.now,
    );
    await upsertPayoutReconciliations(
      client,
      judged.map(({ reconciliation }) => reconciliation),
    );
    const unjudged = current.filter(({ lines }) => lines === null).map(({ payout }) => payout.id);
    await deletePayoutJudgements(client, unjudged);
    return {
      judged: judged.map(({ reconciliation }) => reconciliation.payoutId),
      unjudged,
      overtaken: overtaken.map(({ payout }) => payout.id),
    };
  });
}

/**
 * Reconciles payouts by the contract's rules 1–4 and records the findings, each line's check and each
 * payout's judgement. A payout whose lines are not all loaded is judged by rule 4 only and left visibly
 * unjudged (no `payout_reconciliations` row, no line checks). The payments credited (now, or at the previous
 * judgement) are judged by rule 3. Idempotent. One repeatable-read transaction of a fixed handful of queries
 * to read, one to write, whatever the number of payouts and lines.
 */
export async function reconcilePayouts(
  pool: Pool,
  payoutIds: string[],
  now: Date,
  settings: PayoutSettings,
): Promise<PayoutJudgementSummary> {
  const facts = await readPayoutFacts(pool, payoutIds);
  return recordPayoutJudgements(pool, judgePayouts(facts, settings, now));
}
