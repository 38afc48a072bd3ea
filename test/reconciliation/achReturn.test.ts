import { describe, expect, it } from 'vitest';
import { checkAchReturn } from '../../src/reconciliation/achReturns.ts';
import type { PaymentToReconcile } from '../../src/reconciliation/queries.ts';
import { facts, t } from './fixtures.ts';

const SUCCEEDED_AT = t('2026-11-01T00:00:00Z');
const FAILED_AT = t('2026-11-05T00:00:00Z');

/** A 5,000 ¢ ACH payment that failed on 2026-11-05 with the given code (seed style: in the description). */
const failedAch = (fields: Partial<PaymentToReconcile> = {}): Partial<PaymentToReconcile> => ({
  amount: 5000,
  methodKind: 'ach',
  cardBrand: null,
  status: 'failed',
  errorDescription: 'INSUFFICIENT_FUNDS',
  succeededAt: null,
  failedAt: FAILED_AT,
  ...fields,
});

describe('ach_return', () => {
  it('an ACH payment that fails before it succeeded is a warning, with the code explained', () => {
    expect(checkAchReturn(facts({ payment: failedAch() }))).toEqual([
      {
        code: 'ach_return',
        severity: 'warning',
        subjectType: 'payment',
        subjectId: 'py_1',
        expected: null,
        actual: 'INSUFFICIENT_FUNDS',
        atStake: 5000,
        details: {
          code: 'INSUFFICIENT_FUNDS',
          known: true,
          category: 'funds',
          retryable: true,
          meaning: 'Not enough funds in the account; a retry may succeed once funds are available.',
          error_code: null,
          description: 'INSUFFICIENT_FUNDS',
          late: false,
          amount: 5000,
          succeeded_at: null,
          failed_at: FAILED_AT,
        },
      },
    ]);
  });

  it('an ACH payment that fails after it succeeded is a late return: an error finance must book', () => {
    const payment = failedAch({ errorDescription: 'PAYMENT_STOPPED', succeededAt: SUCCEEDED_AT });
    expect(checkAchReturn(facts({ payment }))).toEqual([
      {
        code: 'ach_return',
        severity: 'error',
        subjectType: 'payment',
        subjectId: 'py_1',
        expected: null,
        actual: 'PAYMENT_STOPPED',
        atStake: 5000,
        details: {
          code: 'PAYMENT_STOPPED',
          known: true,
          category: 'authorization_revoked_or_disputed',
          retryable: false,
          meaning: 'The customer stopped this payment at the bank.',
          error_code: null,
          description: 'PAYMENT_STOPPED',
          late: true,
          amount: 5000,
          succeeded_at: SUCCEEDED_AT,
          failed_at: FAILED_AT,
        },
      },
    ]);
  });

  it('a code outside the catalogue is kept verbatim and marked unknown', () => {
    const payment = failedAch({ errorCode: 'r99_new', errorDescription: 'A sentence.' });
    expect(checkAchReturn(facts({ payment }))).toEqual([
      expect.objectContaining({
        severity: 'warning',
        actual: 'r99_new',
        details: {
          code: 'r99_new',
          known: false,
          category: 'unknown',
          retryable: false,
          meaning: 'Not one of the provider’s documented ACH failure codes.',
          error_code: 'r99_new',
          description: 'A sentence.',
          late: false,
          amount: 5000,
          succeeded_at: null,
          failed_at: FAILED_AT,
        },
      }),
    ]);
  });

  it.each<[string, Partial<PaymentToReconcile>]>([
    ['a failed card payment', failedAch({ methodKind: 'card', cardBrand: 'visa' })],
    ['an ACH payment that has not failed', failedAch({ status: 'succeeded' })],
    [
      'a failed ACH payment with no code in either field',
      failedAch({ errorCode: null, errorDescription: ' ' }),
    ],
  ])('%s is no ACH return', (_name, payment) => {
    expect(checkAchReturn(facts({ payment }))).toEqual([]);
  });
});
