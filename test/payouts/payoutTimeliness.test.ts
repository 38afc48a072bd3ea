import { describe, expect, it } from 'vitest';
import type { PaymentCredit, PaymentPayoutFacts } from '../../src/payouts/paymentPayoutQueries.ts';
import { checkPaymentPayouts } from '../../src/payouts/payoutRulesPayments.ts';
import { checkPayoutStatus } from '../../src/payouts/payoutRulesStatus.ts';
import { paymentRow, payout, syncedAccount, t } from './builders.ts';

const DAYS = { cc: 3, ach: 5 };
const credit = (payoutId: string, lineId: string): PaymentCredit => ({
  paymentId: 'py_1',
  lineId,
  payoutId,
  accountId: 'acc_1',
  currency: 'usd',
  amount: 10000,
});
const facts = (overrides: Partial<PaymentPayoutFacts> = {}): PaymentPayoutFacts => ({
  paymentId: 'py_1',
  payment: paymentRow(),
  credits: [],
  account: syncedAccount(),
  ...overrides,
});

describe('rule 3: every payment is paid out exactly once', () => {
  it('a payment credited by two payouts is paid out twice (error, the payment amount at stake)', () => {
    expect(
      checkPaymentPayouts(
        facts({ credits: [credit('po_1', 'bt_1'), credit('po_2', 'bt_2')] }),
        DAYS,
        t('2024-06-10T00:00:00Z'),
      ),
    ).toEqual([
      {
        code: 'payment_paid_out_twice',
        severity: 'error',
        subjectType: 'payment',
        subjectId: 'py_1',
        expected: 10000,
        actual: 20000,
        details: { payouts: ['po_1', 'po_2'], lines: ['bt_1', 'bt_2'] },
        atStake: 10000,
      },
    ]);
  });

  it('a payment credited once is paid out, whatever its age', () => {
    expect(
      checkPaymentPayouts(facts({ credits: [credit('po_1', 'bt_1')] }), DAYS, t('2024-07-01T00:00:00Z')),
    ).toEqual([]);
  });

  it.each([
    { case: 'a card payment 3 days old', payment: {}, now: '2024-06-04T00:00:00Z', atStake: 10000 },
    {
      case: 'a partially refunded card payment',
      payment: { status: 'partially_refunded', amountRefunded: 4000 },
      now: '2024-06-05T00:00:00Z',
      atStake: 10000,
    },
    {
      case: 'an ACH payment 5 days old',
      payment: { methodKind: 'ach', amount: 2500 },
      now: '2024-06-06T00:00:00Z',
      atStake: 2500,
    },
  ])('$case in no payout is not paid out (warning, its amount at stake)', ({ payment, now, atStake }) => {
    const [finding, ...rest] = checkPaymentPayouts(facts({ payment: paymentRow(payment) }), DAYS, t(now));
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      code: 'payment_not_paid_out',
      severity: 'warning',
      subjectType: 'payment',
      subjectId: 'py_1',
      expected: atStake,
      actual: 0,
      atStake,
    });
  });

  it.each([
    { case: 'a card payment not yet 3 days old', facts: facts(), now: '2024-06-03T23:59:59Z' },
    {
      case: 'an ACH payment 4 days old',
      facts: facts({ payment: paymentRow({ methodKind: 'ach' }) }),
      now: '2024-06-05T00:00:00Z',
    },
    {
      case: 'an account the payout sync does not list',
      facts: facts({ account: null }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a payment created after the newest synced payout',
      facts: facts({ account: syncedAccount({ newestPayoutCreatedAt: t('2024-06-01T00:00:00Z') }) }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a payment created before the first full listing of payouts started',
      facts: facts({ account: syncedAccount({ listedFrom: t('2024-06-02T00:00:00Z') }) }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a failed payment',
      facts: facts({ payment: paymentRow({ status: 'failed' }) }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a fully refunded payment',
      facts: facts({ payment: paymentRow({ status: 'succeeded', amountRefunded: 10000 }) }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a voided or ACH-returned payment',
      facts: facts({ payment: paymentRow({ returned: true }) }),
      now: '2024-07-01T00:00:00Z',
    },
    {
      case: 'a payout type without PAYOUT_EXPECTED_DAYS',
      facts: facts({ payment: paymentRow({ methodKind: 'ach' }) }),
      now: '2024-07-01T00:00:00Z',
      days: { cc: 3 },
    },
  ])('$case is not judged not paid out', ({ facts: payment, now, days }) => {
    expect(checkPaymentPayouts(payment, days ?? DAYS, t(now))).toEqual([]);
  });
});

describe('rule 4: payouts land', () => {
  const NOW = t('2024-06-12T00:00:00Z');
  it.each([
    { status: 'failed', code: 'payout_failed', severity: 'error' },
    { status: 'canceled', code: 'payout_canceled', severity: 'warning' },
    { status: 'in_transit', code: 'payout_overdue', severity: 'warning' },
    { status: 'scheduled', code: 'payout_overdue', severity: 'warning' },
  ])('a $status payout is $code ($severity), its amount at stake', ({ status, code, severity }) => {
    // deposits_at 2024-06-10: 48 hours before now, past PAYOUT_OVERDUE_HOURS = 24.
    expect(checkPayoutStatus(payout({ status, amount: 7590 }), 24, NOW)).toEqual([
      expect.objectContaining({
        code,
        severity,
        subjectType: 'payout',
        subjectId: 'po_1',
        expected: 'paid',
        actual: status,
        atStake: 7590,
      }),
    ]);
  });

  it.each([
    { case: 'a paid payout', payout: payout({ status: 'paid' }), hours: 24 },
    { case: 'a forwarded payout', payout: payout({ status: 'forwarded' }), hours: 24 },
    {
      case: 'an in-transit payout within PAYOUT_OVERDUE_HOURS of deposits_at',
      payout: payout({ status: 'in_transit' }),
      hours: 49,
    },
    {
      case: 'a payout with no deposits_at',
      payout: payout({ status: 'in_transit', depositsAt: null }),
      hours: 24,
    },
  ])('$case raises nothing', ({ payout: row, hours }) => {
    expect(checkPayoutStatus(row, hours, NOW)).toEqual([]);
  });
});
