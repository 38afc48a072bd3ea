import { describe, expect, it } from 'vitest';
import type { CardDecline, EarlierDecline } from '../../src/reconciliation/declineQueries.ts';
import {
  cardDeclineRuns,
  checkRepeatedDeclines,
  checkRetryAgainstAdvice,
} from '../../src/reconciliation/declineRules.ts';
import { facts } from '../reconciliation/fixtures.ts';

const earlier = (overrides: Partial<EarlierDecline>): EarlierDecline => ({
  paymentId: 'py_declined',
  accountId: 'acc_1',
  advice: 'do_not_retry',
  scope: null,
  declineCode: 'do_not_retry',
  network: 'MASTERCARD',
  networkErrorCode: '504',
  networkErrorCategory: '03',
  attemptedAt: new Date('2026-11-01T10:00:00Z'),
  ...overrides,
});

const decline = (paymentId: string, at: string, accountId = 'acc_1'): CardDecline => ({
  cardKey: 'pm_1',
  paymentId,
  accountId,
  amount: 100,
  currency: 'usd',
  advice: 'retry_later',
  declineCode: 'insufficient_funds',
  attemptedAt: new Date(at),
});

describe('checkRetryAgainstAdvice', () => {
  it('puts the retried payment’s amount at stake and names the newest decline within scope', () => {
    const drafts = checkRetryAgainstAdvice(
      facts({
        payment: { id: 'py_retry', accountId: 'acc_1', amount: 12_345 },
        earlierDeclines: [
          // Newest first: an R1 at another merchant does not count here, the older one at this merchant does.
          earlier({
            paymentId: 'py_other_merchant',
            accountId: 'acc_2',
            advice: 'stop_recurring',
            scope: 'merchant',
          }),
          earlier({ paymentId: 'py_here' }),
        ],
      }),
    );
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({
      code: 'card_retried_against_advice',
      severity: 'error',
      subjectType: 'payment',
      subjectId: 'py_retry',
      atStake: 12_345,
      expected: 'do_not_retry',
      actual: 'py_here',
    });
  });

  it('raises nothing without an earlier decline that forbids the retry here', () => {
    const payment = { id: 'py_retry', accountId: 'acc_2' };
    expect(checkRetryAgainstAdvice(facts({ payment, earlierDeclines: [earlier({})] }))).toEqual([]);
    expect(checkRetryAgainstAdvice(facts({ payment, earlierDeclines: [] }))).toEqual([]);
  });
});

describe('checkRepeatedDeclines', () => {
  it('counts declines strictly within 24 h: four spanning exactly 24 h are not a burst', () => {
    const spanning = [
      '2026-11-01T00:00:00Z',
      '2026-11-01T08:00:00Z',
      '2026-11-01T16:00:00Z',
      '2026-11-02T00:00:00Z',
    ];
    expect(
      checkRepeatedDeclines(
        'pm_1',
        spanning.map((at, i) => decline(`py_${i}`, at)),
        3,
      ),
    ).toEqual([]);
    const within = [...spanning.slice(0, 3), '2026-11-01T23:59:59Z'];
    expect(
      checkRepeatedDeclines(
        'pm_1',
        within.map((at, i) => decline(`py_${i}`, at)),
        3,
      ),
    ).toHaveLength(1);
  });

  it('follows the alert count, files the finding under the newest decline’s account, and puts nothing at stake', () => {
    const declines = [
      decline('py_1', '2026-11-01T00:00:00Z'),
      decline('py_2', '2026-11-01T01:00:00Z', 'acc_2'),
    ];
    expect(checkRepeatedDeclines('pm_1', declines, 2)).toEqual([]);
    expect(checkRepeatedDeclines('pm_1', declines, 1)).toEqual([
      {
        code: 'card_declined_repeatedly',
        severity: 'warning',
        subjectType: 'payment_method',
        subjectId: 'pm_1',
        expected: { declines_within_24h: 1 },
        actual: { declines_within_24h: 2 },
        atStake: null,
        accountId: 'acc_2',
        currency: 'usd',
        details: {
          declines: 2,
          alert_count: 1,
          first_declined_at: new Date('2026-11-01T00:00:00Z'),
          last_declined_at: new Date('2026-11-01T01:00:00Z'),
          payment_ids: ['py_1', 'py_2'],
          account_ids: ['acc_1', 'acc_2'],
          decline_codes: ['insufficient_funds'],
        },
      },
    ]);
  });
});

describe('cardDeclineRuns', () => {
  it('gives every card one run, a card without declines an empty one (which resolves its finding)', () => {
    const now = new Date('2026-11-02T00:00:00Z');
    const runs = cardDeclineRuns(['pm_1', 'pm_2', 'pm_1'], [decline('py_1', '2026-11-01T00:00:00Z')], 3, now);
    expect(runs).toEqual([
      { context: { scope: 'card:pm_1', accountId: 'acc_1', currency: null, now }, findings: [] },
      { context: { scope: 'card:pm_2', accountId: null, currency: null, now }, findings: [] },
    ]);
  });
});
