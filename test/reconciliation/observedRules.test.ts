import { describe, expect, it } from 'vitest';
import { checkoutStatus } from '../../src/projection/checkouts/checkoutSnapshot.ts';
import { disputeStatus } from '../../src/projection/disputes/disputeSnapshot.ts';
import { type EventFamily, familyOf } from '../../src/projection/eventFamilies.ts';
import { methodKindOf, paymentSchema } from '../../src/projection/payments/paymentSnapshot.ts';
import { unknownValuesOf } from '../../src/projection/unknownValues.ts';
import { ACH_RETURN_CODES, checkAchReturn, classifyAchFailure } from '../../src/reconciliation/achReturns.ts';
import { disputeFindings } from '../../src/reconciliation/disputeRules.ts';
import { feesHandedBack } from '../../src/reconciliation/refundRules.ts';
import { facts } from './fixtures.ts';

// The pure rules behind the shapes docs/webhooks.md lists under "What Tally accepts", as tables.

describe('familyOf routes by the shape of data, then by name', () => {
  it.each<[string, Record<string, unknown>, EventFamily]>([
    ['payment.dispute.created', { id: 'dp_1' }, 'dispute'],
    ['payment.dispute.closed', { id: 'dp_1' }, 'dispute'],
    ['payment.created', { id: 'dp_1' }, 'dispute'],
    ['payment.refunded', { id: 'py_1' }, 'payment'],
    ['payment.refunded', { id: 're_1' }, 'refund'],
    ['payment.refunded', { id: 'refund-without-prefix' }, 'refund'],
    ['payment.succeeded', { id: 'payment-without-prefix' }, 'payment'],
    ['checkout.completion.succeeded', { id: 'chc_1', checkout_id: 'checkout_7' }, 'checkout_completion'],
    ['checkout.completion.succeeded', { checkout_id: 'checkout_7' }, 'checkout_completion'],
    ['checkout.completion.succeeded', { id: 'cho_1' }, 'checkout'],
    ['checkout.completed', { id: 'cho_1' }, 'checkout'],
    ['checkout.completed', { checkout_id: 'cho_1' }, 'checkout_completion'],
    ['forwarding_request.failed', { id: 'fwd_1' }, 'forwarding'],
    ['payment.dispute_evidence.created', { id: 'dp_1' }, 'other'],
    ['payment_intent.succeeded', { id: 'py_1' }, 'other'],
    ['payment_method.created', { id: 'pm_1' }, 'other'],
    ['payout.paid', { id: 'po_1' }, 'payout'],
    ['payout.api_snapshot', { id: 'po_1' }, 'payout'],
    ['balance_transaction.api_snapshot', { id: 'bt_1', payout_id: 'po_1' }, 'payout_line'],
    ['payout.lines_counted', { payout_id: 'po_1', line_count: 3 }, 'payout_line_count'],
    ['something.new', { id: 'xyz_1' }, 'other'],
    ['something.new', { id: 'chc_1', checkout_id: 'cho_1' }, 'checkout_completion'],
    ['something.new', { id: 'constructor_1' }, 'other'],
    ['constructor', { id: '__proto___1' }, 'other'],
  ])('%s with %o is %s', (name, data, family) => {
    expect(familyOf(name, data)).toBe(family);
  });
});

describe('methodKindOf: the method decides ACH, the mode card-present vs online', () => {
  const card = { card: { brand: 'visa' } };
  const bank = { bank_account: { id: 'pm_1' } };
  it.each<[unknown, string | null, string | null]>([
    [bank, 'ecom', 'ach'],
    [bank, null, 'ach'],
    [bank, 'card_present', 'ach'],
    [card, 'ecom', 'card'],
    [card, null, 'card'],
    [card, 'card_present', 'card_present'],
    [card, 'bnpl', 'other'],
    [card, 'apple_pay', 'other'],
    [null, 'ach', 'ach'],
    [null, null, null],
  ])('method %o with mode %s is %s', (method, mode, kind) => {
    const payment = paymentSchema.parse({
      id: 'py_1',
      amount: 1,
      currency: 'usd',
      payment_mode: mode,
      payment_method: method,
    });
    expect(methodKindOf(payment)).toBe(kind);
  });
});

describe('feesHandedBack', () => {
  it.each([
    [{ returned: true, status: 'succeeded', methodKind: 'card' }, true],
    [{ returned: false, status: 'canceled', methodKind: 'card' }, true],
    [{ returned: false, status: 'failed', methodKind: 'ach' }, true],
    [{ returned: false, status: 'failed', methodKind: 'card' }, false],
    [{ returned: false, status: 'succeeded', methodKind: 'ach' }, false],
  ])('%o → %s', (payment, expected) => {
    expect(feesHandedBack(payment)).toBe(expected);
  });
});

describe('ACH failure codes', () => {
  it.each([
    ['account_closed', "The customer's bank account has been closed.", 'ACCOUNT_CLOSED', 'account_problem'],
    ['account_frozen', 'The customer’s bank account is frozen.', 'ACCOUNT_FROZEN', 'account_problem'],
    [
      'bank_account_restricted',
      'This payment could not be processed.',
      'BANK_ACCOUNT_RESTRICTED',
      'account_problem',
    ],
    ['insufficient_funds', 'Not enough money.', 'INSUFFICIENT_FUNDS', 'funds'],
    ['invalid_account_number', 'Wrong structure.', 'INVALID_ACCOUNT_NUMBER', 'account_problem'],
    ['no_account', 'Could not be located.', 'NO_ACCOUNT', 'account_problem'],
    [null, 'PAYMENT_STOPPED', 'PAYMENT_STOPPED', 'authorization_revoked_or_disputed'],
    [null, ' payment_stopped ', 'PAYMENT_STOPPED', 'authorization_revoked_or_disputed'],
    ['ach_error', 'UNCOLLECTED_FUNDS', 'UNCOLLECTED_FUNDS', 'funds'],
  ])('error_code %s, error_description %s → %s (%s)', (errorCode, description, code, category) => {
    expect(classifyAchFailure(errorCode, description)).toMatchObject({ code, known: { category } });
  });

  it('keeps anything else verbatim, unknown, and ignores blank fields', () => {
    expect(classifyAchFailure('r99_new', 'A sentence.')).toEqual({ code: 'r99_new', known: undefined });
    expect(classifyAchFailure('  ', 'R99_NEW')).toEqual({ code: 'R99_NEW', known: undefined });
    expect(classifyAchFailure(null, '')).toBeNull();
    expect(classifyAchFailure('constructor', null)).toEqual({ code: 'constructor', known: undefined });
    expect(Object.keys(ACH_RETURN_CODES)).toHaveLength(17);
  });

  it('an ACH payment failed with the guide shape opens ach_return with the sentence kept', () => {
    const failedAt = new Date('2026-11-05T00:00:00Z');
    const payment = {
      amount: 5000,
      methodKind: 'ach',
      cardBrand: null,
      status: 'failed',
      errorCode: 'account_closed',
      errorDescription: "The customer's bank account has been closed.",
      succeededAt: null,
      failedAt,
    } as const;
    expect(checkAchReturn(facts({ payment }))).toEqual([
      {
        code: 'ach_return',
        severity: 'warning',
        subjectType: 'payment',
        subjectId: 'py_1',
        expected: null,
        actual: 'ACCOUNT_CLOSED',
        atStake: 5000,
        details: {
          code: 'ACCOUNT_CLOSED',
          known: true,
          category: 'account_problem',
          retryable: false,
          meaning: 'The bank account was closed.',
          error_code: 'account_closed',
          description: "The customer's bank account has been closed.",
          late: false,
          amount: 5000,
          succeeded_at: null,
          failed_at: failedAt,
        },
      },
    ]);
  });
});

describe('disputes', () => {
  it.each([
    ['payment.dispute.created', undefined, 'needs_response', 0],
    ['payment.dispute.submitted', undefined, 'under_review', 1],
    ['payment.dispute.closed', 'won', 'won', 2],
    ['payment.dispute.closed', 'lost', 'lost', 2],
    ['payment.dispute.forfeited', 'lost', 'forfeited', 2],
    ['payment.dispute.funds_returned', 'charge_refunded', 'charge_refunded', 0],
    ['payment.dispute.closed', undefined, null, -1],
  ])('%s with status %s is %s (rank %i)', (name, stated, status, rank) => {
    expect(disputeStatus(name, stated)).toEqual({ status, rank });
  });

  const dispute = (status: string | null) => ({
    id: 'dp_1',
    paymentId: 'py_1',
    accountId: 'acc_1',
    amount: 2500,
    currency: 'usd',
    reason: 'fraudulent',
    dueDate: '2026-11-20',
    status,
  });
  const details = (status: string) => ({
    payment_id: 'py_1',
    amount: 2500,
    reason: 'fraudulent',
    due_date: '2026-11-20',
    status,
  });
  it.each([
    ['needs_response', 'dispute_open', 'warning'],
    ['under_review', 'dispute_open', 'warning'],
    ['lost', 'dispute_lost', 'error'],
    ['forfeited', 'dispute_lost', 'error'],
  ])('%s opens %s (%s)', (status, code, severity) => {
    expect(disputeFindings(dispute(status))).toEqual([
      {
        code,
        severity,
        subjectType: 'dispute',
        subjectId: 'dp_1',
        accountId: 'acc_1',
        currency: 'usd',
        expected: null,
        actual: 2500,
        atStake: 2500,
        details: details(status),
      },
    ]);
  });
  it.each(['won', 'charge_refunded', null])('%s opens nothing', (status) => {
    expect(disputeFindings(dispute(status))).toEqual([]);
  });
});

describe('checkoutStatus takes the higher-ranked of the stated status and the event name', () => {
  it.each([
    ['checkout.created', 'created', 'checkout', 'created', 0],
    ['checkout.created', 'expired', 'checkout', 'expired', 2],
    ['checkout.created', 'attempted', 'checkout', 'attempted', 1],
    ['checkout.completed', 'created', 'checkout', 'completed', 3],
    ['checkout.completion.failed', 'failed', 'completion', 'attempted', 1],
    ['checkout.completion.succeeded', 'succeeded', 'completion', 'completed', 3],
    ['something.new', 'succeeded', 'completion', 'completed', 3],
    ['something.new', 'brand_new', 'checkout', 'brand_new', 0],
    ['something.new', null, 'checkout', 'created', 0],
  ] as const)('%s stating %s (%s) is %s', (name, stated, kind, status, rank) => {
    expect(checkoutStatus(name, stated, kind)).toEqual({ status, rank });
  });
});

describe('unknownValuesOf', () => {
  it('names the fields whose values the seed does not know, cut to 100 characters', () => {
    const data = {
      payment_mode: 'bnpl',
      status: 'succeeded',
      capture_strategy: 'x'.repeat(300),
      payment_method: { card: { brand: 'jcb' } },
    };
    expect(unknownValuesOf('payment.created', 'payment', data)).toEqual([
      { field: 'payment.payment_mode', value: 'bnpl' },
      { field: 'payment.capture_strategy', value: 'x'.repeat(100) },
      { field: 'payment.card_brand', value: 'jcb' },
    ]);
    expect(
      unknownValuesOf('payment.created', 'payment', { payment_mode: 'ecom', status: 'refunded' }),
    ).toEqual([]);
    expect(unknownValuesOf('payment_intent.succeeded', 'other', { id: 'pi_1' })).toEqual([
      { field: 'unprojected_event', value: 'payment_intent.succeeded' },
    ]);
    expect(unknownValuesOf('payout.paid', 'payout', { id: 'po_1', status: 'reversed' })).toEqual([
      { field: 'payout.status', value: 'reversed' },
    ]);
    expect(unknownValuesOf('payment.refunded', 'refund', { status: 'success' })).toEqual([]);
    expect(unknownValuesOf('payment.dispute.closed', 'dispute', { status: 'charge_refunded' })).toEqual([
      { field: 'dispute.status', value: 'charge_refunded' },
    ]);
  });
});
