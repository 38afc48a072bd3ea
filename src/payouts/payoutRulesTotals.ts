import type { FindingDraft } from '../findings/findings.ts';
import type { PayoutLineToCheck, PayoutToCheck } from './payoutFactsQueries.ts';

/** The stated figures of a payout that its lines are added up against (rule 1). */
const PAYOUT_FIGURES = [
  'amount',
  'payments_total',
  'payments_count',
  'refunds_total',
  'refunds_count',
  'fees_total',
  'other_total',
] as const;

type PayoutFigure = (typeof PAYOUT_FIGURES)[number];

const COUNTS: readonly PayoutFigure[] = ['payments_count', 'refunds_count'];

/**
 * What the lines of a payout add up to, each figure as the payout states it: `amount` the signed net of every
 * line but the payout's own; totals as positive magnitudes (payments credited, refunds debited, fees deducted
 * as fee lines or a line's `fee` less fees handed back); `other_total` signed.
 */
function sumPayoutLines(lines: PayoutLineToCheck[]): Record<PayoutFigure, number> {
  const sums = {
    amount: 0,
    payments_total: 0,
    payments_count: 0,
    refunds_total: 0,
    refunds_count: 0,
    fees_total: 0,
    other_total: 0,
  };
  for (const line of lines) {
    if (line.kind === 'payout') continue;
    sums.amount += line.net;
    sums.fees_total += line.fee;
    if (line.kind === 'payment') {
      sums.payments_total += line.amount;
      sums.payments_count += 1;
    } else if (line.kind === 'refund') {
      sums.refunds_total -= line.amount;
      sums.refunds_count += 1;
    } else if (line.kind === 'fee' || line.kind === 'fee_return') {
      // A fee deducted is a debit (adds to the total), a fee handed back a credit (takes from it).
      sums.fees_total -= line.amount;
    } else sums.other_total += line.amount;
  }
  return sums;
}

function statedFigures(payout: PayoutToCheck): Record<PayoutFigure, number | null> {
  return {
    amount: payout.amount,
    payments_total: payout.paymentsTotal,
    payments_count: payout.paymentsCount,
    refunds_total: payout.refundsTotal,
    refunds_count: payout.refundsCount,
    fees_total: payout.feesTotal,
    other_total: payout.otherTotal,
  };
}

/**
 * Rule 1, a payout adds up: its lines come to its amount, and to each total and count it states (a figure it
 * does not state is not checked). One `payout_total_mismatch` (error) with every differing figure, stated as
 * `expected`, from the lines as `actual`. At stake: the difference of the amount; when the amount agrees, the
 * largest difference among the money totals; null when only a count differs (no money is measured).
 */
export function checkPayoutTotals(payout: PayoutToCheck, lines: PayoutLineToCheck[]): FindingDraft[] {
  const sums = sumPayoutLines(lines);
  const stated = statedFigures(payout);
  const differing = PAYOUT_FIGURES.filter((figure) => {
    const value = stated[figure];
    return value !== null && value !== sums[figure];
  });
  if (differing.length === 0) return [];
  const difference = (figure: PayoutFigure) => Math.abs((stated[figure] ?? 0) - sums[figure]);
  const money = differing.filter((figure) => !COUNTS.includes(figure));
  const atStake = differing.includes('amount')
    ? difference('amount')
    : money.length === 0
      ? null
      : Math.max(...money.map(difference));
  return [
    {
      code: 'payout_total_mismatch',
      severity: 'error',
      subjectType: 'payout',
      subjectId: payout.id,
      expected: Object.fromEntries(differing.map((figure) => [figure, stated[figure]])),
      actual: Object.fromEntries(differing.map((figure) => [figure, sums[figure]])),
      details: {
        lines: lines.filter((line) => line.kind !== 'payout').length,
        figures: Object.fromEntries(
          PAYOUT_FIGURES.map((figure) => [figure, { expected: stated[figure], actual: sums[figure] }]),
        ),
        differing,
      },
      atStake,
    },
  ];
}
