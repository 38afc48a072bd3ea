import { describe, expect, it } from 'vitest';
import { checkDisputes } from '../../src/reconciliation/disputeRules.ts';
import type { DisputeToReconcile } from '../../src/reconciliation/queries.ts';

const dispute = (id: string, status: string | null, amount: number): DisputeToReconcile => ({
  id,
  paymentId: 'py_1',
  accountId: 'acc_1',
  amount,
  currency: 'usd',
  reason: 'fraudulent',
  dueDate: '2026-11-20',
  status,
});

describe('disputes of a payment', () => {
  it('each open or lost dispute opens its own finding, on the dispute, in its account and currency', () => {
    const disputes = [
      dispute('dp_open', 'needs_response', 2500),
      dispute('dp_won', 'won', 1000),
      dispute('dp_lost', 'lost', 4200),
    ];
    expect(checkDisputes({ disputes })).toEqual([
      {
        code: 'dispute_open',
        severity: 'warning',
        subjectType: 'dispute',
        subjectId: 'dp_open',
        accountId: 'acc_1',
        currency: 'usd',
        expected: null,
        actual: 2500,
        atStake: 2500,
        details: {
          payment_id: 'py_1',
          amount: 2500,
          reason: 'fraudulent',
          due_date: '2026-11-20',
          status: 'needs_response',
        },
      },
      {
        code: 'dispute_lost',
        severity: 'error',
        subjectType: 'dispute',
        subjectId: 'dp_lost',
        accountId: 'acc_1',
        currency: 'usd',
        expected: null,
        actual: 4200,
        atStake: 4200,
        details: {
          payment_id: 'py_1',
          amount: 4200,
          reason: 'fraudulent',
          due_date: '2026-11-20',
          status: 'lost',
        },
      },
    ]);
  });

  it('a payment without disputes has none to report', () => {
    expect(checkDisputes({ disputes: [] })).toEqual([]);
  });
});
