import {
  type AdviceScope,
  DECLINE_REASONS,
  type DeclineEntry,
  KNOWN_NETWORKS,
  NETWORK_ERROR_CATEGORIES,
  NETWORK_ERROR_CODES,
  type RetryAdvice,
} from './declineTables.ts';

export { type AdviceScope, RETRY_ADVICE, type RetryAdvice } from './declineTables.ts';

/** The decline fields of a failed card payment, as the provider sent them (any of them may be missing). */
export type DeclineFields = {
  errorCode: string | null;
  errorDescription: string | null;
  declineCode: string | null;
  network: string | null;
  networkErrorCode: string | null;
  networkErrorCategory: string | null;
};

export type DeclineClassification = {
  /** The decline reason: `decline_code`, else a decline reason found in `error_code` or `error_description`. */
  declineCode: string | null;
  declineMeaning: string | null;
  network: string | null;
  networkErrorCode: string | null;
  networkErrorMeaning: string | null;
  networkErrorCategory: string | null;
  categoryMeaning: string | null;
  advice: RetryAdvice;
  /** Only for `stop_recurring` from an R0, R1 or R3 category. */
  scope: AdviceScope | null;
  /** Values none of the seed's tables knows, verbatim, by field (for `unknown_values`). */
  unknownValues: { field: string; value: string }[];
};

const present = (value: string | null): value is string => value !== null && value.trim() !== '';

const lookUp = <Entry>(table: Readonly<Record<string, Entry>>, key: string): Entry | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

const reasonOf = (value: string) => lookUp(DECLINE_REASONS, value.trim().toLowerCase());

/** `116`, `5` → `005`: the seed writes network codes with three digits. */
function networkCodeKey(value: string): string {
  const code = value.trim();
  return /^\d{1,2}$/.test(code) ? code.padStart(3, '0') : code.toUpperCase();
}

/** `VISA`, `Visa`, `american express` → `AMERICAN_EXPRESS`. */
function networkKey(value: string): string {
  return value.trim().toUpperCase().replace(/\s+/g, '_');
}

// A numeric category matches whatever its leading zeros (VISA `01` is 1, MASTERCARD `2` is 02).
const categoryKey = (value: string) => {
  const category = value.trim().toUpperCase();
  return /^\d+$/.test(category) ? String(Number(category)) : category;
};

function categoryOf(network: string | null, category: string) {
  const wanted = categoryKey(category);
  const tables = [network === null ? undefined : lookUp(NETWORK_ERROR_CATEGORIES, networkKey(network))];
  tables.push(NETWORK_ERROR_CATEGORIES.ALL);
  for (const table of tables) {
    const found = Object.entries(table ?? {}).find(([key]) => categoryKey(key) === wanted);
    if (found) return found[1];
  }
  return undefined;
}

/**
 * The decline reason as sent: `decline_code` whatever its value, else the first of `error_code` and
 * `error_description` that is one of the seed's decline reasons (either case).
 */
function declineCodeOf(fields: DeclineFields): string | null {
  if (present(fields.declineCode)) return fields.declineCode.trim();
  const found = [fields.errorCode, fields.errorDescription].find(
    (value) => present(value) && reasonOf(value) !== undefined,
  );
  return found?.trim() ?? null;
}

/**
 * Classifies a decline by the seed's tables, case-insensitively. The advice comes from the most specific
 * source known: the network error category (the networks' own word for recurring payments), else the
 * decline reason, else the network error code; `unknown` when none is known. Unknown values are kept
 * verbatim and listed.
 */
export function classifyDecline(fields: DeclineFields): DeclineClassification {
  const declineCode = declineCodeOf(fields);
  const network = present(fields.network) ? fields.network.trim() : null;
  const networkErrorCode = present(fields.networkErrorCode) ? fields.networkErrorCode.trim() : null;
  const networkErrorCategory = present(fields.networkErrorCategory)
    ? fields.networkErrorCategory.trim()
    : null;
  const reason = declineCode === null ? undefined : reasonOf(declineCode);
  const code: DeclineEntry | undefined =
    networkErrorCode === null ? undefined : lookUp(NETWORK_ERROR_CODES, networkCodeKey(networkErrorCode));
  const category = networkErrorCategory === null ? undefined : categoryOf(network, networkErrorCategory);
  const advised = [category, reason, code].find((entry) => entry !== undefined && entry.advice !== 'unknown');

  const unknownValues: { field: string; value: string }[] = [];
  const unknown = (field: string, value: string | null, known: unknown) => {
    if (value !== null && known === undefined) unknownValues.push({ field, value });
  };
  unknown('payment.decline_code', declineCode, reason);
  unknown(
    'payment.network',
    network,
    network === null || KNOWN_NETWORKS.has(networkKey(network)) ? true : undefined,
  );
  unknown('payment.network_error_code', networkErrorCode, code);
  unknown('payment.network_error_category', networkErrorCategory, category);

  return {
    declineCode,
    declineMeaning: reason?.meaning ?? null,
    network,
    networkErrorCode,
    networkErrorMeaning: code?.meaning ?? null,
    networkErrorCategory,
    categoryMeaning: category?.meaning ?? null,
    advice: advised?.advice ?? 'unknown',
    scope: advised !== undefined && advised === category ? category.scope : null,
    unknownValues,
  };
}

/** What each advice means for a merchant's retry logic, in words for people (API, report, console). */
export const ADVICE_IN_WORDS: Readonly<Record<RetryAdvice, string>> = {
  do_not_retry: 'Do not charge this card again: the issuer will never approve it.',
  retry_later: 'The issuer cannot approve now: a later retry may succeed.',
  retry_with_new_details: 'Do not retry with the same details: ask the customer for updated card details.',
  stop_recurring: 'Stop recurring payments on this card.',
  unknown: 'No advice: the decline carries no code Tally knows.',
};

export const SCOPE_IN_WORDS: Readonly<Record<AdviceScope, string>> = {
  one_recurring_payment: 'this recurring payment, at this merchant',
  merchant: 'every payment at this merchant',
  all_merchants: 'every payment, at every merchant',
};

/**
 * Whether a later payment on the same card at `retryAccountId` goes against a decline's advice given at
 * `declineAccountId`: `do_not_retry` and `stop_recurring` forbid retrying at the merchant that was told
 * (R0, R1, and advice without a scope); R3 forbids it at every merchant.
 */
export function retryGoesAgainstAdvice(
  advice: RetryAdvice,
  scope: AdviceScope | null,
  declineAccountId: string,
  retryAccountId: string,
): boolean {
  if (advice !== 'do_not_retry' && advice !== 'stop_recurring') return false;
  return scope === 'all_merchants' || declineAccountId === retryAccountId;
}

/** A card as the projection identifies it: the fields "same card" compares. */
export type CardIdentity = {
  brand: string | null;
  lastFour: string | null;
  /** `YYYY-MM`. */
  expiry: string | null;
};

const textOf = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : typeof value === 'number' && Number.isInteger(value)
      ? String(value)
      : null;

/**
 * Brand, last four and expiry of a payment method's card. `acct_last_four` is sometimes an integer (then
 * zero-padded); the expiry is read from `exp_month`/`exp_year` or `month`/`year`, two-digit years as 20YY.
 */
export function cardIdentityOf(card: Record<string, unknown> | null | undefined): CardIdentity {
  if (!card) return { brand: null, lastFour: null, expiry: null };
  const lastFour = textOf(card.acct_last_four);
  const month = Number(textOf(card.exp_month ?? card.month));
  const year = Number(textOf(card.exp_year ?? card.year));
  const fullYear = year < 100 ? 2000 + year : year;
  const expiry =
    Number.isInteger(month) && month >= 1 && month <= 12 && Number.isInteger(year) && year > 0
      ? `${fullYear}-${String(month).padStart(2, '0')}`
      : null;
  return {
    brand: textOf(card.brand)?.toLowerCase() ?? null,
    lastFour: lastFour !== null && /^\d{1,4}$/.test(lastFour) ? lastFour.padStart(4, '0') : null,
    expiry,
  };
}

/**
 * The stable key of a card, the subject of `card_declined_repeatedly`: its payment method id when it has
 * one, else `card:<brand>:<last four>:<YYYY-MM>` when all three are known, else null.
 */
export function cardKeyOf(paymentMethodId: string | null, card: CardIdentity): string | null {
  if (paymentMethodId !== null) return paymentMethodId;
  if (card.brand === null || card.lastFour === null || card.expiry === null) return null;
  return `card:${card.brand}:${card.lastFour}:${card.expiry}`;
}
