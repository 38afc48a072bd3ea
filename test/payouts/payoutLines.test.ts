import { describe, expect, it } from 'vitest';
import type { PaymentWithObjects, PayoutLineToCheck } from '../../src/payouts/payoutFactsQueries.ts';
import { checkPayoutLines } from '../../src/payouts/payoutRulesLines.ts';
import { line, paymentWithObjects } from './builders.ts';

// py_1: 10000 by card, a processing fee of 320, a refund of 2000 that returned 50 of it.
// py_2: an ACH payment returned (or a void): its fee of 150 handed back without a refund object.
// py_3: two refunds, each returning part of the processing fee.
const PAYMENTS = new Map<string, PaymentWithObjects>([
  [
    'py_1',
    paymentWithObjects({
      fees: [{ id: 'pyfee_1', type: 'processing_fee', amount: 320, remainingAmount: 270 }],
      refunds: [
        {
          id: 're_1',
          amount: 2000,
          status: 'succeeded',
          returnedFees: [{ id: 'rtfee_1', type: 'processing_fee', returnedAmount: 50 }],
        },
      ],
    }),
  ],
  [
    'py_2',
    paymentWithObjects({
      id: 'py_2',
      amount: 5000,
      status: 'failed',
      methodKind: 'ach',
      returned: true,
      fees: [{ id: 'pyfee_2', type: 'processing_fee', amount: 150, remainingAmount: 0 }],
    }),
  ],
  [
    'py_3',
    paymentWithObjects({
      id: 'py_3',
      fees: [{ id: 'pyfee_3', type: 'processing_fee', amount: 320, remainingAmount: 220 }],
      refunds: [
        {
          id: 're_3a',
          amount: 1000,
          status: 'succeeded',
          returnedFees: [{ id: 'rtfee_3a', type: 'processing_fee', returnedAmount: 30 }],
        },
        {
          id: 're_3b',
          amount: 2000,
          status: 'succeeded',
          returnedFees: [{ id: 'rtfee_3b', type: 'processing_fee', returnedAmount: 70 }],
        },
      ],
    }),
  ],
]);

const check = (payoutLine: PayoutLineToCheck) => checkPayoutLines([payoutLine], PAYMENTS);

describe('rule 2: each line agrees with what Tally knows', () => {
  it.each([
    {
      case: 'a payment credited at its amount',
      line: line('bt', 'payment', 'seller_payment', 10000),
      matched: ['payment', 'py_1'],
      expected: 10000,
    },
    {
      case: 'a payment credited with its fees deducted on its line',
      line: line('bt', 'payment', 'seller_payment', 10000, { fee: 320 }),
      matched: ['payment', 'py_1'],
      expected: 9680,
    },
    {
      case: 'a processing fee line',
      line: line('bt', 'fee', 'processing_fee', -320),
      matched: ['payment_fee', 'pyfee_1'],
      expected: -320,
    },
    {
      case: 'a refund line',
      line: line('bt', 'refund', 'seller_payment_refund', -2000, { sourceId: 're_1' }),
      matched: ['refund', 're_1'],
      expected: -2000,
    },
    {
      case: 'a fee returned by a refund',
      line: line('bt', 'fee_return', 'processing_fee_return', 50, { sourceId: 're_1' }),
      matched: ['returned_fee', 'rtfee_1'],
      expected: 50,
    },
    {
      case: 'a fee handed back by an ACH return or void (fee - remaining)',
      line: line('bt', 'fee_return', 'processing_fee_return', 150, { paymentId: 'py_2', sourceId: 'py_2' }),
      matched: ['payment_fee', 'pyfee_2'],
      expected: 150,
    },
    {
      case: 'a fee return naming its returned fee, among several refunds',
      line: line('bt', 'fee_return', 'processing_fee_return', 70, {
        paymentId: 'py_3',
        sourceId: 'rtfee_3b',
      }),
      matched: ['returned_fee', 'rtfee_3b'],
      expected: 70,
    },
  ])('$case is ok', ({ line: payoutLine, matched, expected }) => {
    const { drafts, lineChecks } = check(payoutLine);
    expect(drafts).toEqual([]);
    expect(lineChecks).toEqual([
      {
        lineId: 'bt',
        payoutId: 'po_1',
        matchedType: matched[0],
        matchedId: matched[1],
        status: 'ok',
        expected,
        actual: expected,
      },
    ]);
  });

  it.each([
    {
      case: 'a payment credited short',
      line: line('bt', 'payment', 'seller_payment', 9900),
      object: ['payment', 'py_1'],
      expected: 10000,
      actual: 9900,
      atStake: 100,
    },
    {
      case: 'a payment line deducting the wrong fee',
      line: line('bt', 'payment', 'seller_payment', 10000, { fee: 345 }),
      object: ['payment', 'py_1'],
      expected: 9680,
      actual: 9655,
      atStake: 25,
    },
    {
      case: 'a fee line over the fee',
      line: line('bt', 'fee', 'processing_fee', -330),
      object: ['payment_fee', 'pyfee_1'],
      expected: -320,
      actual: -330,
      atStake: 10,
    },
    {
      case: 'a fee of a type the payment was not charged',
      line: line('bt', 'fee', 'platform_fee', -40),
      object: ['payment', 'py_1'],
      expected: 0,
      actual: -40,
      atStake: 40,
    },
    {
      case: 'a refund debited over the refund',
      line: line('bt', 'refund', 'refund', -2100, { sourceId: 're_1' }),
      object: ['refund', 're_1'],
      expected: -2000,
      actual: -2100,
      atStake: 100,
    },
    {
      case: 'a fee return short of what the refund returned',
      line: line('bt', 'fee_return', 'processing_fee_return', 40, { sourceId: 're_1' }),
      object: ['returned_fee', 'rtfee_1'],
      expected: 50,
      actual: 40,
      atStake: 10,
    },
    {
      case: 'an ACH return handing back less than the fee',
      line: line('bt', 'fee_return', 'processing_fee_return', 100, { paymentId: 'py_2', sourceId: 'py_2' }),
      object: ['payment_fee', 'pyfee_2'],
      expected: 150,
      actual: 100,
      atStake: 50,
    },
    {
      case: 'a refund debited for a payment Tally knows no refund of',
      line: line('bt', 'refund', 'refund', -500, { paymentId: 'py_2', sourceId: 're_9' }),
      object: ['payment', 'py_2'],
      expected: 0,
      actual: -500,
      atStake: 500,
    },
  ])('$case is a payout_line_mismatch', ({ line: payoutLine, object, expected, actual, atStake }) => {
    const { drafts, lineChecks } = check(payoutLine);
    expect(drafts).toEqual([
      expect.objectContaining({
        code: 'payout_line_mismatch',
        severity: 'error',
        subjectType: 'balance_transaction',
        subjectId: 'bt',
        expected,
        actual,
        atStake,
      }),
    ]);
    expect(drafts[0]?.details).toMatchObject({
      payout_id: 'po_1',
      kind: payoutLine.kind,
      txn_type: payoutLine.txnType,
      object_type: object[0],
      object_id: object[1],
    });
    expect(lineChecks[0]).toMatchObject({
      status: 'mismatch',
      matchedType: object[0],
      matchedId: object[1],
      expected,
      actual,
    });
  });

  it.each([
    {
      case: 'a payment Tally does not have',
      line: line('bt', 'payment', 'seller_payment', 5000, { paymentId: 'py_9' }),
      atStake: 5000,
    },
    {
      case: 'a refund of a payment Tally does not have',
      line: line('bt', 'refund', 'refund', -700, { paymentId: 'py_9' }),
      atStake: 700,
    },
    {
      case: 'a fee line naming no payment at all',
      line: line('bt', 'fee', 'processing_fee', -30, { paymentId: null }),
      atStake: 30,
    },
  ])('$case is a payout_payment_unknown', ({ line: payoutLine, atStake }) => {
    const { drafts, lineChecks } = check(payoutLine);
    expect(drafts).toEqual([
      expect.objectContaining({
        code: 'payout_payment_unknown',
        severity: 'error',
        subjectType: 'balance_transaction',
        subjectId: 'bt',
        expected: null,
        actual: payoutLine.amount,
        atStake,
      }),
    ]);
    expect(lineChecks[0]).toMatchObject({ status: 'payment_unknown', matchedType: null, matchedId: null });
  });

  it.each([
    { case: 'the payout line itself', line: line('bt', 'payout', 'payout', -9000) },
    { case: 'an other line (a dispute)', line: line('bt', 'other', 'dispute', -800) },
    {
      case: 'a fee return that fits several refunds',
      line: line('bt', 'fee_return', 'processing_fee_return', 30, { paymentId: 'py_3', sourceId: 'py_3' }),
    },
  ])('$case is not checked and raises nothing', ({ line: payoutLine }) => {
    const { drafts, lineChecks } = check(payoutLine);
    expect(drafts).toEqual([]);
    expect(lineChecks[0]).toMatchObject({ status: 'not_checked', matchedType: null, expected: null });
  });
});
