import type { FindingDraft } from '../findings/findings.ts';
import type { BankLineFacts, PayoutFacts } from './matchQueries.ts';

export type BankMatchFacts = {
  ambiguous: { payout: PayoutFacts; lineIds: number[] }[];
  missing: PayoutFacts[];
  unmatchedCredits: BankLineFacts[];
};

const window = (payout: PayoutFacts) => ({ from: payout.windowFrom, to: payout.windowTo });

/**
 * Rule 5's findings from what matching left over. `details.amount` carries the money at stake too, where
 * the reports read it.
 */
export function bankMatchFindings(facts: BankMatchFacts): FindingDraft[] {
  const ambiguous = facts.ambiguous.map(
    ({ payout, lineIds }): FindingDraft => ({
      code: 'bank_match_ambiguous',
      severity: 'warning',
      subjectType: 'payout',
      subjectId: payout.id,
      expected: { credits: 1 },
      actual: { credits: lineIds.length, bank_line_ids: lineIds },
      details: { amount: payout.amount, deposits_on: payout.dueDay, window: window(payout) },
      atStake: payout.amount,
      accountId: payout.accountId,
      currency: payout.currency,
    }),
  );
  const missing = facts.missing.map(
    (payout): FindingDraft => ({
      code: 'payout_not_in_bank',
      severity: 'error',
      subjectType: 'payout',
      subjectId: payout.id,
      expected: { amount: payout.amount, value_date_from: payout.windowFrom, value_date_to: payout.windowTo },
      actual: null,
      details: { amount: payout.amount, deposits_on: payout.dueDay },
      atStake: payout.amount,
      accountId: payout.accountId,
      currency: payout.currency,
    }),
  );
  const unmatched = facts.unmatchedCredits.map(
    (line): FindingDraft => ({
      code: 'bank_deposit_unmatched',
      severity: 'warning',
      subjectType: 'bank_line',
      subjectId: String(line.id),
      expected: { payout: 'a paid payout of this currency and amount due within the match window' },
      actual: { amount: line.amount, value_date: line.valueDate },
      details: {
        amount: line.amount,
        bank_account: line.bankAccount,
        description: line.description,
        reference: line.reference,
      },
      atStake: line.amount,
      currency: line.currency.toLowerCase(),
    }),
  );
  return [...ambiguous, ...missing, ...unmatched];
}
