import type { FindingDraft } from '../findings/findings.ts';
import type { PaymentFacts } from './queries.ts';

export type AchCategory =
  | 'account_problem'
  | 'authorization_revoked_or_disputed'
  | 'funds'
  | 'blocked_before_network'
  | 'other';

export type AchReturnCode = { category: AchCategory; retryable: boolean; meaning: string };

/** The seed's 17 ACH failure descriptions: what each means, and whether retrying can succeed. */
export const ACH_RETURN_CODES: Record<string, AchReturnCode> = {
  ACCOUNT_CLOSED: { category: 'account_problem', retryable: false, meaning: 'The bank account was closed.' },
  ACCOUNT_FROZEN_OR_RETURNED_OFAC_INSTRUCTION: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The account is frozen, or the entry was returned on an OFAC instruction.',
  },
  ACCOUNT_NOT_FOUND: {
    category: 'account_problem',
    retryable: false,
    meaning: 'No account matches the account number given.',
  },
  BENEFICIARY_OR_ACCOUNT_HOLDER_DECEASED: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The account holder or beneficiary has died.',
  },
  CHECK_TRUNCATION_EARLY_RETURN: {
    category: 'other',
    retryable: false,
    meaning: 'A converted check entry was returned early by the bank.',
  },
  CORPORATE_CUSTOMER_ADVISES_NOT_AUTHORIZED: {
    category: 'authorization_revoked_or_disputed',
    retryable: false,
    meaning: 'The business account holder says the debit was not authorized.',
  },
  CUSTOMER_ADVISE_INVALID_TRANSACTION: {
    category: 'authorization_revoked_or_disputed',
    retryable: false,
    meaning:
      'The customer says the transaction is invalid (amount, date or terms differ from what was agreed).',
  },
  CUSTOMER_REVOKED_AUTHORIZATION: {
    category: 'authorization_revoked_or_disputed',
    retryable: false,
    meaning: 'The customer revoked the authorization: never debit this account again without a new one.',
  },
  DUPLICATE_ENTRY: {
    category: 'other',
    retryable: false,
    meaning: 'The bank saw the entry as a duplicate of one already posted.',
  },
  INSUFFICIENT_FUNDS: {
    category: 'funds',
    retryable: true,
    meaning: 'Not enough funds in the account; a retry may succeed once funds are available.',
  },
  INVALID_ACCOUNT_NUMBER: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The account number is not valid.',
  },
  INVALID_ACH_ROUTING_NUMBER: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The routing number is not a valid ACH routing number.',
  },
  NON_TRANSACTION_ACCOUNT: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The account does not allow ACH debits.',
  },
  PAYMENT_STOPPED: {
    category: 'authorization_revoked_or_disputed',
    retryable: false,
    meaning: 'The customer stopped this payment at the bank.',
  },
  UNAUTHORIZED_DEBIT: {
    category: 'authorization_revoked_or_disputed',
    retryable: false,
    meaning: 'The customer reports the debit as unauthorized.',
  },
  UNCOLLECTED_FUNDS: {
    category: 'funds',
    retryable: true,
    meaning: 'The balance is not yet collected; retry when available funds suffice.',
  },
  VALIDATION_ERROR: {
    category: 'blocked_before_network',
    retryable: false,
    meaning: 'Blocked by validation before entering the ACH network; nothing reached the bank.',
  },
};

/**
 * The lower-case codes the provider's ACH test guide shows in `error_code`, with a sentence in
 * `error_description`. Those that name a seed code (account_closed, insufficient_funds,
 * invalid_account_number) are found in the seed's table case-insensitively; these are the others.
 */
export const GUIDE_ACH_RETURN_CODES: Record<string, AchReturnCode> = {
  ACCOUNT_FROZEN: { category: 'account_problem', retryable: false, meaning: 'The bank account is frozen.' },
  BANK_ACCOUNT_RESTRICTED: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The bank account does not accept this payment.',
  },
  NO_ACCOUNT: {
    category: 'account_problem',
    retryable: false,
    meaning: 'The bank account could not be located.',
  },
};

/** The catalogue entry for a code as sent, in either case; undefined for anything else. */
export function lookUpAchCode(value: string): { code: string; entry: AchReturnCode } | undefined {
  const code = value.trim().toUpperCase();
  const entry = Object.hasOwn(ACH_RETURN_CODES, code)
    ? ACH_RETURN_CODES[code]
    : Object.hasOwn(GUIDE_ACH_RETURN_CODES, code)
      ? GUIDE_ACH_RETURN_CODES[code]
      : undefined;
  return entry ? { code, entry } : undefined;
}

/**
 * The ACH failure code of a payment: the first of `error_code` and `error_description` that the catalogue
 * knows (either case), else the first one sent, verbatim. Null when neither was sent.
 */
export function classifyAchFailure(
  errorCode: string | null,
  errorDescription: string | null,
): { code: string; known: AchReturnCode | undefined } | null {
  const sent = [errorCode, errorDescription].filter(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  );
  if (sent.length === 0) return null;
  const known = sent.map(lookUpAchCode).find((found) => found !== undefined);
  return known
    ? { code: known.code, known: known.entry }
    : { code: (sent[0] as string).trim(), known: undefined };
}

/**
 * `ach_return` for an ACH payment that failed with an error: the code, found in `error_code` or
 * `error_description` (the seed puts it in the description, the provider's guide in the code with a
 * sentence in the description), its category, whether a retry can succeed, and `late` when the payment
 * had already succeeded (a reversal finance must book). A code outside the catalogue is kept verbatim
 * with `known: false`; the provider's sentence is kept as `description`.
 */
export function checkAchReturn({ payment }: PaymentFacts): FindingDraft[] {
  if (payment.methodKind !== 'ach' || payment.status !== 'failed') return [];
  const classified = classifyAchFailure(payment.errorCode, payment.errorDescription);
  if (!classified) return [];
  const { code, known } = classified;
  const late = payment.succeededAt !== null;
  return [
    {
      code: 'ach_return',
      severity: late ? 'error' : 'warning',
      subjectType: 'payment',
      subjectId: payment.id,
      expected: null,
      actual: code,
      atStake: payment.amount,
      details: {
        code,
        known: known !== undefined,
        category: known?.category ?? 'unknown',
        retryable: known?.retryable ?? false,
        meaning: known?.meaning ?? 'Not one of the provider’s documented ACH failure codes.',
        error_code: payment.errorCode,
        description: payment.errorDescription,
        late,
        amount: payment.amount,
        succeeded_at: payment.succeededAt,
        failed_at: payment.failedAt,
      },
    },
  ];
}
