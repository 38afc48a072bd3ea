import { describe, expect, it } from 'vitest';
import { classifyDecline, type DeclineFields, retryGoesAgainstAdvice } from '../../src/domain/declines.ts';
import type { RetryAdvice } from '../../src/domain/declineTables.ts';
import { cardColumnsOf, declineFieldsOf, declineOf } from '../../src/projection/declines/declineRows.ts';
import { unknownValuesOf } from '../../src/projection/unknownValues.ts';

const NONE: DeclineFields = {
  errorCode: null,
  errorDescription: null,
  declineCode: null,
  network: null,
  networkErrorCode: null,
  networkErrorCategory: null,
};

// The seed's "Card decline reasons" table, row by row (rows naming several codes split), and the advice.
const SEED_DECLINE_REASONS: [string, string, RetryAdvice][] = [
  ['expired_card', 'Card expired', 'retry_with_new_details'],
  ['invalid_address', 'Address incorrect', 'retry_with_new_details'],
  ['invalid_card_number', 'Number incorrect', 'retry_with_new_details'],
  [
    'invalid_card_brand',
    'Brand unsupported (Visa, Mastercard, American Express and Discover are supported)',
    'do_not_retry',
  ],
  ['invalid_cvc', 'Security code incorrect', 'retry_with_new_details'],
  ['invalid_expiry_month', 'Expiry part incorrect', 'retry_with_new_details'],
  ['invalid_expiry_year', 'Expiry part incorrect', 'retry_with_new_details'],
  ['invalid_expiry_date', 'Expiry part incorrect', 'retry_with_new_details'],
  ['invalid_zip_code', 'Postal code incorrect', 'retry_with_new_details'],
  ['do_not_honor', 'Rejected by issuing bank', 'retry_later'],
  ['do_not_retry', 'Rejected. Do not retry.', 'do_not_retry'],
  ['new_card_issued', 'Denied because a new card was issued', 'retry_with_new_details'],
  ['account_closed', 'Account closed', 'do_not_retry'],
  ['restricted_card', 'Card restriction prevents approval', 'do_not_retry'],
  ['insufficient_funds', 'Insufficient funds', 'retry_later'],
  ['exceeds_card_limit', 'Exceeds a limit on the card', 'retry_later'],
  ['pin_tries_exceeded', 'PIN retries exceeded', 'retry_later'],
  ['incorrect_pin', 'PIN incorrect', 'retry_with_new_details'],
  ['pin_required', 'PIN required', 'retry_with_new_details'],
  ['issuer_not_available', 'Issuer unavailable. Try later.', 'retry_later'],
];

// The seed's "Network error codes" table, row by row (rows naming two codes split).
const SEED_NETWORK_CODES: [string, string, RetryAdvice][] = [
  ['005', 'Do not honor', 'retry_later'],
  ['100', 'Do not honor', 'retry_later'],
  ['101', 'Expired card', 'retry_with_new_details'],
  ['102', 'Suspected fraud', 'do_not_retry'],
  ['104', 'Restricted card', 'do_not_retry'],
  ['106', 'Allowable PIN tries exceeded', 'retry_later'],
  ['110', 'Invalid amount', 'retry_with_new_details'],
  ['116', 'Not sufficient funds', 'retry_later'],
  ['134', 'Not sufficient funds', 'retry_later'],
  ['117', 'Incorrect PIN or PIN length', 'retry_with_new_details'],
  ['119', 'Transaction not permitted to cardholder', 'do_not_retry'],
  ['121', 'Exceeds withdrawal amount limit', 'retry_later'],
  ['122', 'Security violation', 'do_not_retry'],
  ['123', 'Exceeds withdrawal frequency limit', 'retry_later'],
  ['124', 'Violation of law', 'do_not_retry'],
  ['129', 'Suspected counterfeit card', 'do_not_retry'],
  ['131', 'Invalid account number', 'retry_with_new_details'],
  ['132', 'Unmatched card expiry date', 'retry_with_new_details'],
  ['152', 'Exceeds limit', 'retry_later'],
  ['154', 'Over monthly limit', 'retry_later'],
  ['208', 'Lost card', 'do_not_retry'],
  ['209', 'Stolen card', 'do_not_retry'],
  ['213', 'Invalid account number for card type', 'retry_with_new_details'],
  ['231', 'Stop payment for all payments', 'stop_recurring'],
  ['232', 'Account closed, stop all payments', 'stop_recurring'],
  ['237', 'Deny, new card issued', 'retry_with_new_details'],
  ['302', 'Account closed', 'do_not_retry'],
  ['317', 'Max balance exceeded', 'retry_later'],
  ['351', 'Customer PIN authentication required', 'retry_with_new_details'],
  ['414', 'Void or full reversal past the network cut-off; a refund may be needed', 'do_not_retry'],
  ['500', 'Generic error', 'unknown'],
  ['503', 'New account information available', 'retry_with_new_details'],
  ['504', 'Do not try again', 'do_not_retry'],
  ['505', 'Please retry', 'retry_later'],
  ['512', 'Service not allowed or invalid surcharge amount', 'do_not_retry'],
  ['516', 'Retry (format error, unroutable, unavailable, busy, timeout)', 'retry_later'],
  ['517', 'CVV2 declined', 'retry_with_new_details'],
  ['528', 'Debit or EBT count or withdrawal limit exceeded', 'retry_later'],
  ['531', 'Retry with 3DS data; 3D Secure is not supported', 'do_not_retry'],
  ['902', 'Invalid transaction', 'do_not_retry'],
  ['907', 'Issuer or switch inoperative, or processor unavailable', 'retry_later'],
];

// The seed's "Network error category" table: the advice is the seed's own words.
const SEED_CATEGORIES: [string, string, string, RetryAdvice, string | null][] = [
  ['VISA', '1', 'Issuer will never approve. Do not retry.', 'do_not_retry', null],
  ['VISA', '2', 'Cannot approve now. May retry later.', 'retry_later', null],
  [
    'VISA',
    '3',
    'Details invalid (e.g. cvv, expiry). Do not retry without new information.',
    'retry_with_new_details',
    null,
  ],
  ['VISA', 'R00', 'Recurring payment not allowed on card. Do not retry.', 'stop_recurring', null],
  ['VISA', 'R01', 'Recurring payment not allowed on card. Do not retry.', 'stop_recurring', null],
  ['MASTERCARD', '01', 'Updated information needed', 'retry_with_new_details', null],
  ['MASTERCARD', '02', 'Try again later', 'retry_later', null],
  ['MASTERCARD', '03', 'Do not try again', 'do_not_retry', null],
  [
    'VISA',
    'R0',
    'Stops one recurring payment for one merchant and card account',
    'stop_recurring',
    'one_recurring_payment',
  ],
  [
    'MASTERCARD',
    'R1',
    'Stops all future payments for one merchant and card account',
    'stop_recurring',
    'merchant',
  ],
  [
    'DISCOVER',
    'R3',
    'Stops all payments on a card account across merchants',
    'stop_recurring',
    'all_merchants',
  ],
];

describe('the seed’s card decline reasons', () => {
  it.each(SEED_DECLINE_REASONS)('%s means “%s” and advises %s', (code, meaning, advice) => {
    const decline = classifyDecline({ ...NONE, errorCode: 'card_declined', declineCode: code });
    expect(decline).toMatchObject({ declineCode: code, declineMeaning: meaning, advice, scope: null });
    expect(decline.unknownValues).toEqual([]);
  });

  it.each(SEED_DECLINE_REASONS)(
    '%s is found in error_code or error_description, in any case',
    (code, meaning) => {
      const inCode = classifyDecline({ ...NONE, errorCode: code.toUpperCase() });
      const inDescription = classifyDecline({
        ...NONE,
        errorCode: 'card_declined',
        errorDescription: ` ${code} `,
      });
      expect(inCode).toMatchObject({ declineCode: code.toUpperCase(), declineMeaning: meaning });
      expect(inDescription).toMatchObject({ declineCode: code, declineMeaning: meaning });
    },
  );
});

describe('the seed’s network error codes', () => {
  it.each(SEED_NETWORK_CODES)('%s means “%s” and advises %s', (code, meaning, advice) => {
    const decline = classifyDecline({ ...NONE, networkErrorCode: code });
    expect(decline).toMatchObject({
      networkErrorCode: code,
      networkErrorMeaning: meaning,
      advice,
      scope: null,
    });
    expect(decline.unknownValues).toEqual([]);
  });

  it('a code sent without its leading zeros is the same code', () => {
    expect(classifyDecline({ ...NONE, networkErrorCode: '5' })).toMatchObject({
      networkErrorCode: '5',
      networkErrorMeaning: 'Do not honor',
      advice: 'retry_later',
    });
  });
});

describe('the seed’s network error categories', () => {
  it.each(SEED_CATEGORIES)('%s %s means “%s”: %s (scope %s)', (network, category, meaning, advice, scope) => {
    const decline = classifyDecline({ ...NONE, network, networkErrorCategory: category });
    expect(decline).toMatchObject({ categoryMeaning: meaning, advice, scope });
    expect(decline.unknownValues).toEqual([]);
  });

  it('reads network and category in any case, numeric categories whatever their leading zeros', () => {
    expect(classifyDecline({ ...NONE, network: 'visa', networkErrorCategory: '01' }).advice).toBe(
      'do_not_retry',
    );
    expect(classifyDecline({ ...NONE, network: 'Mastercard', networkErrorCategory: '3' }).advice).toBe(
      'do_not_retry',
    );
    expect(classifyDecline({ ...NONE, network: 'visa', networkErrorCategory: 'r3' })).toMatchObject({
      advice: 'stop_recurring',
      scope: 'all_merchants',
    });
  });

  it('the category outranks the decline reason and the network code', () => {
    // The provider's own example: do_not_retry, MASTERCARD 03, 504.
    const decline = classifyDecline({
      ...NONE,
      errorCode: 'card_declined',
      declineCode: 'insufficient_funds',
      network: 'MASTERCARD',
      networkErrorCode: '116',
      networkErrorCategory: '03',
    });
    expect(decline.advice).toBe('do_not_retry');
    expect(decline.declineMeaning).toBe('Insufficient funds');
    expect(decline.networkErrorMeaning).toBe('Not sufficient funds');
  });
});

describe('unknown values', () => {
  it('are kept verbatim, advise unknown and are listed by field', () => {
    const decline = classifyDecline({
      errorCode: 'card_declined',
      errorDescription: 'Something the issuer said',
      declineCode: 'Brand_New_Reason',
      network: 'UnionPay',
      networkErrorCode: '999',
      networkErrorCategory: 'R9',
    });
    expect(decline).toMatchObject({
      declineCode: 'Brand_New_Reason',
      declineMeaning: null,
      network: 'UnionPay',
      networkErrorCode: '999',
      networkErrorMeaning: null,
      networkErrorCategory: 'R9',
      categoryMeaning: null,
      advice: 'unknown',
      scope: null,
    });
    expect(decline.unknownValues).toEqual([
      { field: 'payment.decline_code', value: 'Brand_New_Reason' },
      { field: 'payment.network', value: 'UnionPay' },
      { field: 'payment.network_error_code', value: '999' },
      { field: 'payment.network_error_category', value: 'R9' },
    ]);
  });

  it('a failure with no code at all advises unknown and lists nothing', () => {
    expect(classifyDecline({ ...NONE, errorCode: 'card_declined' })).toMatchObject({
      declineCode: null,
      advice: 'unknown',
      unknownValues: [],
    });
  });

  it('an unknown category falls back to the decline reason', () => {
    expect(
      classifyDecline({ ...NONE, declineCode: 'stolen_card', network: 'VISA', networkErrorCategory: '9' })
        .advice,
    ).toBe('do_not_retry');
  });

  it('are counted in unknown_values from a failed card payment delivery, never from an ACH one', () => {
    const card = {
      id: 'py_1',
      status: 'failed',
      decline_code: 'new_reason',
      network_error_code: 999,
      payment_method: { card: { id: 'pm_1', brand: 'visa' } },
    };
    expect(unknownValuesOf('payment.failed', 'payment', card)).toEqual([
      { field: 'payment.decline_code', value: 'new_reason' },
      { field: 'payment.network_error_code', value: '999' },
    ]);
    const ach = { ...card, payment_method: { bank_account: { id: 'pm_2' } } };
    expect(unknownValuesOf('payment.failed', 'payment', ach)).toEqual([]);
  });
});

describe('the projection reads the decline and the card', () => {
  it('reads the fields from the payment, else from an error object shaped like the seed’s card error', () => {
    expect(
      declineFieldsOf({
        error: {
          code: 'card_declined',
          decline_code: 'do_not_retry',
          message: 'This card has been rejected.',
          network: 'MASTERCARD',
          network_error_category: '03',
          network_error_code: '504',
        },
      }),
    ).toEqual({
      errorCode: 'card_declined',
      errorDescription: 'This card has been rejected.',
      declineCode: 'do_not_retry',
      network: 'MASTERCARD',
      networkErrorCode: '504',
      networkErrorCategory: '03',
    });
  });

  it('classifies failed card payments only', () => {
    const card = { payment_method: { card: { id: 'pm_1' } } };
    expect(declineOf({ ...card, status: 'succeeded' }, 'payment.succeeded')).toBeNull();
    expect(declineOf({ ...card, status: 'failed' }, 'payment.updated')?.advice).toBe('unknown');
    expect(declineOf({ ...card }, 'payment.failed')?.advice).toBe('unknown');
    expect(
      declineOf({ payment_method: { bank_account: {} }, status: 'failed' }, 'payment.failed'),
    ).toBeNull();
  });

  it('keys a card by its payment method id, else by brand, last four and expiry', () => {
    const card = { brand: 'Visa', acct_last_four: 42, exp_month: '3', exp_year: 30 };
    expect(cardColumnsOf({ payment_method: { card } }, 'pm_1')).toEqual({
      card_last_four: '0042',
      card_expiry: '2030-03',
      card_key: 'pm_1',
    });
    expect(cardColumnsOf({ payment_method: { card } }, null).card_key).toBe('card:visa:0042:2030-03');
    expect(cardColumnsOf({ payment_method: { card: { brand: 'visa' } } }, null).card_key).toBeNull();
    expect(cardColumnsOf({ payment_method: { bank_account: {} } }, 'pm_2').card_key).toBeNull();
  });
});

describe('retryGoesAgainstAdvice', () => {
  it.each<[RetryAdvice, 'one_recurring_payment' | 'merchant' | 'all_merchants' | null, string, boolean]>([
    ['do_not_retry', null, 'acc_1', true],
    ['do_not_retry', null, 'acc_2', false],
    ['stop_recurring', 'one_recurring_payment', 'acc_1', true],
    ['stop_recurring', 'one_recurring_payment', 'acc_2', false],
    ['stop_recurring', 'merchant', 'acc_2', false],
    ['stop_recurring', 'all_merchants', 'acc_2', true],
    ['retry_later', null, 'acc_1', false],
    ['retry_with_new_details', null, 'acc_1', false],
    ['unknown', null, 'acc_1', false],
  ])('%s (scope %s) then a payment at %s: %s', (advice, scope, retryAccount, against) => {
    expect(retryGoesAgainstAdvice(advice, scope, 'acc_1', retryAccount)).toBe(against);
  });
});
