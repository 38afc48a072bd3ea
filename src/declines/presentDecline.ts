import {
  ADVICE_IN_WORDS,
  type AdviceScope,
  classifyDecline,
  type RetryAdvice,
  SCOPE_IN_WORDS,
} from '../domain/declines.ts';
import type { DeclineRow } from './queries.ts';

const isAdvice = (value: string): value is RetryAdvice => Object.hasOwn(ADVICE_IN_WORDS, value);
const isScope = (value: string | null): value is AdviceScope =>
  value !== null && Object.hasOwn(SCOPE_IN_WORDS, value);

/** A decline as the API and the console show it: the stored codes, each with the seed's meaning, and the advice in words. */
export function presentDecline(row: DeclineRow) {
  const meanings = classifyDecline({
    errorCode: null,
    errorDescription: null,
    declineCode: row.decline_code,
    network: row.network,
    networkErrorCode: row.network_error_code,
    networkErrorCategory: row.network_error_category,
  });
  const advice = isAdvice(row.retry_advice) ? row.retry_advice : 'unknown';
  return {
    id: row.payment_id,
    payment_id: row.payment_id,
    account_id: row.account_id,
    amount: row.amount,
    currency: row.currency,
    card_brand: row.card_brand,
    card_last_four: row.card_last_four,
    payment_method_id: row.payment_method_id,
    error_code: row.error_code,
    decline_code: row.decline_code,
    decline_meaning: meanings.declineMeaning,
    network: row.network,
    network_error_code: row.network_error_code,
    network_error_meaning: meanings.networkErrorMeaning,
    network_error_category: row.network_error_category,
    network_error_category_meaning: meanings.categoryMeaning,
    advice,
    advice_in_words: ADVICE_IN_WORDS[advice],
    scope: row.advice_scope,
    scope_in_words: isScope(row.advice_scope) ? SCOPE_IN_WORDS[row.advice_scope] : null,
    declined_at: row.declined_at,
  };
}

export type PresentedDecline = ReturnType<typeof presentDecline>;
