/**
 * The seed's three decline tables (its Errors part): card decline reasons, network error codes and network
 * error categories, each with the seed's wording and the retry advice Tally gives for it. The seed states
 * the advice for the categories; for reasons and codes it follows the grouping docs/declines.md describes: `do_not_retry` for
 * what the seed marks do-not-try-again and for lost, stolen, fraud and closed accounts; `retry_later` for
 * funds, limits and an unavailable issuer; `retry_with_new_details` for expiry, number, cvc, PIN and new
 * account information.
 */

export const RETRY_ADVICE = [
  'do_not_retry',
  'retry_later',
  'retry_with_new_details',
  'stop_recurring',
  'unknown',
] as const;

export type RetryAdvice = (typeof RETRY_ADVICE)[number];

/**
 * Where a `stop_recurring` applies, from the seed's category table: R0 one recurring payment of one
 * merchant, R1 every payment of one merchant, R3 every merchant.
 */
export type AdviceScope = 'one_recurring_payment' | 'merchant' | 'all_merchants';

export type DeclineEntry = { meaning: string; advice: RetryAdvice };

const entry = (meaning: string, advice: RetryAdvice): DeclineEntry => ({ meaning, advice });

/** Card decline reasons (`decline_code`, or in `error_code` / `error_description`), lower case. */
export const DECLINE_REASONS: Readonly<Record<string, DeclineEntry>> = {
  expired_card: entry('Card expired', 'retry_with_new_details'),
  invalid_address: entry('Address incorrect', 'retry_with_new_details'),
  invalid_card_number: entry('Number incorrect', 'retry_with_new_details'),
  invalid_card_brand: entry(
    'Brand unsupported (Visa, Mastercard, American Express and Discover are supported)',
    'do_not_retry',
  ),
  invalid_cvc: entry('Security code incorrect', 'retry_with_new_details'),
  invalid_expiry_month: entry('Expiry part incorrect', 'retry_with_new_details'),
  invalid_expiry_year: entry('Expiry part incorrect', 'retry_with_new_details'),
  invalid_expiry_date: entry('Expiry part incorrect', 'retry_with_new_details'),
  invalid_zip_code: entry('Postal code incorrect', 'retry_with_new_details'),
  do_not_honor: entry('Rejected by issuing bank', 'retry_later'),
  do_not_retry: entry('Rejected. Do not retry.', 'do_not_retry'),
  new_card_issued: entry('Denied because a new card was issued', 'retry_with_new_details'),
  account_closed: entry('Account closed', 'do_not_retry'),
  restricted_card: entry('Card restriction prevents approval', 'do_not_retry'),
  insufficient_funds: entry('Insufficient funds', 'retry_later'),
  exceeds_card_limit: entry('Exceeds a limit on the card', 'retry_later'),
  pin_tries_exceeded: entry('PIN retries exceeded', 'retry_later'),
  incorrect_pin: entry('PIN incorrect', 'retry_with_new_details'),
  pin_required: entry('PIN required', 'retry_with_new_details'),
  issuer_not_available: entry('Issuer unavailable. Try later.', 'retry_later'),
  // The seed's test mode declines with these two as well.
  lost_card: entry('Card reported lost', 'do_not_retry'),
  stolen_card: entry('Card reported stolen', 'do_not_retry'),
};

/** Network error codes (`network_error_code`), three digits. */
export const NETWORK_ERROR_CODES: Readonly<Record<string, DeclineEntry>> = {
  '005': entry('Do not honor', 'retry_later'),
  '100': entry('Do not honor', 'retry_later'),
  '101': entry('Expired card', 'retry_with_new_details'),
  '102': entry('Suspected fraud', 'do_not_retry'),
  '104': entry('Restricted card', 'do_not_retry'),
  '106': entry('Allowable PIN tries exceeded', 'retry_later'),
  '110': entry('Invalid amount', 'retry_with_new_details'),
  '116': entry('Not sufficient funds', 'retry_later'),
  '134': entry('Not sufficient funds', 'retry_later'),
  '117': entry('Incorrect PIN or PIN length', 'retry_with_new_details'),
  '119': entry('Transaction not permitted to cardholder', 'do_not_retry'),
  '121': entry('Exceeds withdrawal amount limit', 'retry_later'),
  '122': entry('Security violation', 'do_not_retry'),
  '123': entry('Exceeds withdrawal frequency limit', 'retry_later'),
  '124': entry('Violation of law', 'do_not_retry'),
  '129': entry('Suspected counterfeit card', 'do_not_retry'),
  '131': entry('Invalid account number', 'retry_with_new_details'),
  '132': entry('Unmatched card expiry date', 'retry_with_new_details'),
  '152': entry('Exceeds limit', 'retry_later'),
  '154': entry('Over monthly limit', 'retry_later'),
  '208': entry('Lost card', 'do_not_retry'),
  '209': entry('Stolen card', 'do_not_retry'),
  '213': entry('Invalid account number for card type', 'retry_with_new_details'),
  '231': entry('Stop payment for all payments', 'stop_recurring'),
  '232': entry('Account closed, stop all payments', 'stop_recurring'),
  '237': entry('Deny, new card issued', 'retry_with_new_details'),
  '302': entry('Account closed', 'do_not_retry'),
  '317': entry('Max balance exceeded', 'retry_later'),
  '351': entry('Customer PIN authentication required', 'retry_with_new_details'),
  '414': entry('Void or full reversal past the network cut-off; a refund may be needed', 'do_not_retry'),
  '500': entry('Generic error', 'unknown'),
  '503': entry('New account information available', 'retry_with_new_details'),
  '504': entry('Do not try again', 'do_not_retry'),
  '505': entry('Please retry', 'retry_later'),
  '512': entry('Service not allowed or invalid surcharge amount', 'do_not_retry'),
  '516': entry('Retry (format error, unroutable, unavailable, busy, timeout)', 'retry_later'),
  '517': entry('CVV2 declined', 'retry_with_new_details'),
  '528': entry('Debit or EBT count or withdrawal limit exceeded', 'retry_later'),
  '531': entry('Retry with 3DS data; 3D Secure is not supported', 'do_not_retry'),
  '902': entry('Invalid transaction', 'do_not_retry'),
  '907': entry('Issuer or switch inoperative, or processor unavailable', 'retry_later'),
};

export type CategoryEntry = DeclineEntry & { scope: AdviceScope | null };

/** Network error categories by network (upper case; `ALL` applies to every network), then category. */
export const NETWORK_ERROR_CATEGORIES: Readonly<Record<string, Readonly<Record<string, CategoryEntry>>>> = {
  VISA: {
    '1': { meaning: 'Issuer will never approve. Do not retry.', advice: 'do_not_retry', scope: null },
    '2': { meaning: 'Cannot approve now. May retry later.', advice: 'retry_later', scope: null },
    '3': {
      meaning: 'Details invalid (e.g. cvv, expiry). Do not retry without new information.',
      advice: 'retry_with_new_details',
      scope: null,
    },
    R00: {
      meaning: 'Recurring payment not allowed on card. Do not retry.',
      advice: 'stop_recurring',
      scope: null,
    },
    R01: {
      meaning: 'Recurring payment not allowed on card. Do not retry.',
      advice: 'stop_recurring',
      scope: null,
    },
  },
  MASTERCARD: {
    '01': { meaning: 'Updated information needed', advice: 'retry_with_new_details', scope: null },
    '02': { meaning: 'Try again later', advice: 'retry_later', scope: null },
    '03': { meaning: 'Do not try again', advice: 'do_not_retry', scope: null },
  },
  ALL: {
    R0: {
      meaning: 'Stops one recurring payment for one merchant and card account',
      advice: 'stop_recurring',
      scope: 'one_recurring_payment',
    },
    R1: {
      meaning: 'Stops all future payments for one merchant and card account',
      advice: 'stop_recurring',
      scope: 'merchant',
    },
    R3: {
      meaning: 'Stops all payments on a card account across merchants',
      advice: 'stop_recurring',
      scope: 'all_merchants',
    },
  },
};

/** Networks the seed and its supported brands name; any other is kept and counted as unknown. */
export const KNOWN_NETWORKS = new Set(['VISA', 'MASTERCARD', 'AMERICAN_EXPRESS', 'AMEX', 'DISCOVER']);
