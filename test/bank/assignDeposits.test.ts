import { describe, expect, it } from 'vitest';
import { assignDeposits, type DepositCandidate, namesPayout } from '../../src/bank/assignDeposits.ts';
import { bankMatchFindings } from '../../src/bank/bankRules.ts';

const candidate = (payoutId: string, lineId: number, distance: number, refers = false): DepositCandidate => ({
  payoutId,
  lineId,
  distance,
  refers,
});

describe('assignDeposits', () => {
  it('matches mutual best fits, then what they leave over', () => {
    // po_a takes line 1 (same day); po_b, tied between lines 1 and 2, gets line 2 once line 1 is taken.
    const { matches, ambiguous } = assignDeposits([
      candidate('po_a', 1, 0),
      candidate('po_b', 1, 1),
      candidate('po_b', 2, 1),
    ]);
    expect(matches).toEqual(
      new Map([
        [1, 'po_a'],
        [2, 'po_b'],
      ]),
    );
    expect(ambiguous).toEqual(new Map());
  });

  it('lets a line naming the payout win over a nearer one', () => {
    expect(assignDeposits([candidate('po_a', 1, 0), candidate('po_a', 2, 3, true)]).matches).toEqual(
      new Map([[2, 'po_a']]),
    );
  });

  it('never breaks a tie by order', () => {
    const ties = [candidate('po_a', 1, 1), candidate('po_a', 2, 1)];
    for (const candidates of [ties, [...ties].reverse()]) {
      const { matches, ambiguous } = assignDeposits(candidates);
      expect(matches).toEqual(new Map());
      expect(ambiguous).toEqual(new Map([['po_a', candidates.map((each) => each.lineId)]]));
    }
  });
});

describe('namesPayout', () => {
  it.each([
    ['JUSTIFI PAYOUT PO_ABC', true],
    ['po_abc', true],
    ['ref:po_abc/2026', true],
    ['po_abcd', false],
    ['xpo_abc', false],
    ['po_ab', false],
  ])('%j names po_abc: %s', (text, named) => {
    expect(namesPayout(text, 'po_abc')).toBe(named);
  });
});

describe('bankMatchFindings', () => {
  const payout = {
    id: 'po_1',
    accountId: 'acc_1',
    amount: 1500,
    currency: 'usd',
    dueDay: '2026-03-02',
    windowFrom: '2026-03-01',
    windowTo: '2026-03-05',
  };
  const line = {
    id: 7,
    bankAccount: 'ACC',
    valueDate: '2026-03-02',
    amount: 4200,
    currency: 'USD',
    description: 'JUSTIFI',
    reference: 'R',
  };

  it('puts the payout amount at stake for a missing or ambiguous payout, the credit for an unmatched credit', () => {
    const drafts = bankMatchFindings({
      ambiguous: [{ payout, lineIds: [1, 2] }],
      missing: [{ ...payout, id: 'po_2', amount: 900 }],
      unmatchedCredits: [line],
    });
    expect(
      drafts.map(({ code, severity, subjectType, subjectId, atStake, accountId, currency }) => ({
        code,
        severity,
        subjectType,
        subjectId,
        atStake,
        accountId,
        currency,
      })),
    ).toEqual([
      {
        code: 'bank_match_ambiguous',
        severity: 'warning',
        subjectType: 'payout',
        subjectId: 'po_1',
        atStake: 1500,
        accountId: 'acc_1',
        currency: 'usd',
      },
      {
        code: 'payout_not_in_bank',
        severity: 'error',
        subjectType: 'payout',
        subjectId: 'po_2',
        atStake: 900,
        accountId: 'acc_1',
        currency: 'usd',
      },
      {
        code: 'bank_deposit_unmatched',
        severity: 'warning',
        subjectType: 'bank_line',
        subjectId: '7',
        atStake: 4200,
        accountId: undefined,
        currency: 'usd',
      },
    ]);
  });
});
