import { describe, expect, it } from 'vitest';
import { checkPayoutTotals } from '../../src/payouts/payoutRulesTotals.ts';
import { line, payout } from './builders.ts';

// 10000 credited, 320 and 40 of fees deducted, 2000 refunded, 50 of fee handed back, 100 of other debits:
// 10000 - 2000 - (320 + 40 - 50) - 100 = 7590, with the payout's own line left out.
const LINES = [
  line('bt_pay', 'payment', 'seller_payment', 10000),
  line('bt_fee', 'fee', 'processing_fee', -320),
  line('bt_platform', 'fee', 'platform_fee', -40),
  line('bt_refund', 'refund', 'seller_payment_refund', -2000),
  line('bt_return', 'fee_return', 'processing_fee_return', 50),
  line('bt_other', 'other', 'dispute', -100),
  line('bt_payout', 'payout', 'payout', -7590),
];

const STATED = {
  amount: 7590,
  paymentsTotal: 10000,
  paymentsCount: 1,
  refundsTotal: 2000,
  refundsCount: 1,
  feesTotal: 310,
  otherTotal: -100,
};

describe('rule 1: a payout adds up', () => {
  it('a payout whose lines come to its amount, totals and counts has no finding', () => {
    expect(checkPayoutTotals(payout(STATED), LINES)).toEqual([]);
  });

  it('fees deducted on the payment line (net = amount - fee) count in the fees total', () => {
    const inline = [line('bt_pay', 'payment', 'seller_payment', 10000, { fee: 320 })];
    const stated = { amount: 9680, paymentsTotal: 10000, paymentsCount: 1, feesTotal: 320, refundsTotal: 0 };
    expect(checkPayoutTotals(payout(stated), inline)).toEqual([]);
  });

  it('figures the payout does not state are not checked', () => {
    expect(checkPayoutTotals(payout({ amount: 7590 }), LINES)).toEqual([]);
  });

  it.each([
    {
      case: 'the amount differs: at stake the difference of the amount',
      stated: { ...STATED, amount: 7600, otherTotal: -90 },
      expected: { amount: 7600, other_total: -90 },
      actual: { amount: 7590, other_total: -100 },
      atStake: 10,
    },
    {
      case: 'the amount agrees, one total differs: at stake that difference',
      stated: { ...STATED, feesTotal: 300 },
      expected: { fees_total: 300 },
      actual: { fees_total: 310 },
      atStake: 10,
    },
    {
      case: 'the amount agrees, several totals differ: at stake the largest difference',
      stated: { ...STATED, paymentsTotal: 10030, refundsTotal: 2030 },
      expected: { payments_total: 10030, refunds_total: 2030 },
      actual: { payments_total: 10000, refunds_total: 2000 },
      atStake: 30,
    },
    {
      case: 'only a count differs: no money measured, at stake null',
      stated: { ...STATED, paymentsCount: 2, refundsCount: 0 },
      expected: { payments_count: 2, refunds_count: 0 },
      actual: { payments_count: 1, refunds_count: 1 },
      atStake: null,
    },
  ])('$case', ({ stated, expected, actual, atStake }) => {
    const [finding, ...rest] = checkPayoutTotals(payout(stated), LINES);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      code: 'payout_total_mismatch',
      severity: 'error',
      subjectType: 'payout',
      subjectId: 'po_1',
      expected,
      actual,
      atStake,
    });
    expect(finding?.details).toMatchObject({ lines: 6, differing: Object.keys(expected) });
    expect(finding?.details.figures).toMatchObject({ fees_total: { actual: 310 }, amount: { actual: 7590 } });
  });
});
