import { ADVICE_IN_WORDS, retryGoesAgainstAdvice } from '../domain/declines.ts';
import type { FindingDraft } from '../findings/findings.ts';
import type { FindingRun } from '../findings/queries.ts';
import type { CardDecline } from './declineQueries.ts';
import type { PaymentFacts } from './queries.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `card_retried_against_advice`: the payment charged a card that an earlier decline said not to charge
 * again (`do_not_retry` or `stop_recurring`), within that advice's scope (the same merchant, or any
 * merchant for R3). Names the newest such decline; the retried payment's amount is at stake (the networks
 * charge the merchant for retrying what they were told not to).
 */
export function checkRetryAgainstAdvice({ payment, earlierDeclines }: PaymentFacts): FindingDraft[] {
  const decline = earlierDeclines.find((earlier) =>
    retryGoesAgainstAdvice(earlier.advice, earlier.scope, earlier.accountId, payment.accountId),
  );
  if (!decline) return [];
  return [
    {
      code: 'card_retried_against_advice',
      severity: 'error',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: decline.advice,
      actual: decline.paymentId,
      atStake: payment.amount,
      details: {
        earlier_payment_id: decline.paymentId,
        earlier_account_id: decline.accountId,
        advice: decline.advice,
        advice_in_words: ADVICE_IN_WORDS[decline.advice],
        scope: decline.scope,
        decline_code: decline.declineCode,
        network: decline.network,
        network_error_code: decline.networkErrorCode,
        network_error_category: decline.networkErrorCategory,
        declined_at: decline.attemptedAt,
        amount: payment.amount,
      },
    },
  ];
}

/** The newest run of more than `alertCount` declines within 24 h, oldest first; null when there is none. */
function newestBurst(declines: CardDecline[], alertCount: number): CardDecline[] | null {
  let burst: CardDecline[] | null = null;
  let start = 0;
  for (let end = 0; end < declines.length; end++) {
    const last = declines[end] as CardDecline;
    while ((declines[start] as CardDecline).attemptedAt.getTime() <= last.attemptedAt.getTime() - DAY_MS)
      start++;
    if (end - start + 1 > alertCount) burst = declines.slice(start, end + 1);
  }
  return burst;
}

/**
 * `card_declined_repeatedly` of one card: more than `alertCount` declines within 24 h (any 24 h, the newest
 * such run reported). The subject is the card key (its payment method id, else brand, last four and
 * expiry). Nothing is at stake: a decline moves no money.
 */
export function checkRepeatedDeclines(
  cardKey: string,
  declines: CardDecline[],
  alertCount: number,
): FindingDraft[] {
  const burst = newestBurst(declines, alertCount);
  const last = burst?.at(-1);
  if (!burst || !last) return [];
  return [
    {
      code: 'card_declined_repeatedly',
      severity: 'warning',
      subjectType: 'payment_method',
      subjectId: cardKey,
      // Objects, not numbers: the difference of two counts is no money.
      expected: { declines_within_24h: alertCount },
      actual: { declines_within_24h: burst.length },
      atStake: null,
      accountId: last.accountId,
      ...(last.currency === null ? {} : { currency: last.currency }),
      details: {
        declines: burst.length,
        alert_count: alertCount,
        first_declined_at: burst[0]?.attemptedAt,
        last_declined_at: last.attemptedAt,
        payment_ids: burst.map((decline) => decline.paymentId),
        account_ids: [...new Set(burst.map((decline) => decline.accountId))],
        decline_codes: [...new Set(burst.map((decline) => decline.declineCode ?? 'none'))],
      },
    },
  ];
}

/**
 * One findings run per card (scope `card:<key>`), so a card's finding is opened, refreshed and resolved by
 * whichever of its payments is reconciled, never by two runs at once.
 */
export function cardDeclineRuns(
  cardKeys: string[],
  declines: CardDecline[],
  alertCount: number,
  now: Date,
): FindingRun[] {
  return [...new Set(cardKeys)].map((cardKey) => {
    const ofCard = declines.filter((decline) => decline.cardKey === cardKey);
    const findings = checkRepeatedDeclines(cardKey, ofCard, alertCount);
    const accountId = findings[0]?.accountId ?? ofCard.at(-1)?.accountId ?? null;
    return { context: { scope: `card:${cardKey}`, accountId, currency: null, now }, findings };
  });
}
