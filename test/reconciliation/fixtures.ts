import type { FeeConfiguration } from '../../src/domain/feeConfiguration.ts';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { checkFeeConfigurations } from '../../src/reconciliation/feeConfigurationRules.ts';
import { checkFeeTotal, checkPlatformFee } from '../../src/reconciliation/feeRules.ts';
import type {
  PaymentFacts,
  PaymentFeeToReconcile,
  PaymentToReconcile,
  RefundWithReturnedFees,
  ReturnedFeeToReconcile,
} from '../../src/reconciliation/queries.ts';
import {
  checkFeeRemaining,
  checkRefundTotal,
  checkReturnedFees,
} from '../../src/reconciliation/refundRules.ts';

export const t = (iso: string) => new Date(iso);

/** Order-independent: the rules promise a set of findings, not a sequence. */
export const sorted = (findings: FindingDraft[]) =>
  [...findings].sort((a, b) => `${a.code}|${a.subjectId}`.localeCompare(`${b.code}|${b.subjectId}`));

/** The fee rules together, as a payment is reconciled: a case also proves no other fee finding opens. */
export const feeRules = (facts: PaymentFacts) =>
  sorted([...checkFeeTotal(facts), ...checkFeeConfigurations(facts), ...checkPlatformFee(facts)]);

/** The refund rules together, as a payment is reconciled. */
export const refundRules = (facts: PaymentFacts) =>
  sorted([...checkRefundTotal(facts), ...checkReturnedFees(facts), ...checkFeeRemaining(facts)]);

// ---------------------------------------------------------------------------------------------------------
// Fee configurations of one sub account. Every price below is for the default payment of 12,345 ¢.
// ---------------------------------------------------------------------------------------------------------

export function configuration(
  id: string,
  feeType: string,
  variableRate: string,
  transactionFeeCents: number,
  feeCapCents: number | null,
  effectiveStart: string,
  effectiveEnd: string | null,
): FeeConfiguration {
  return {
    id,
    accountId: 'acc_1',
    platformAccountId: null,
    feeType,
    variableRate,
    transactionFeeCents,
    transactionFeeCurrency: 'usd',
    feeCapCents,
    effectiveStart: t(effectiveStart),
    effectiveEnd: effectiveEnd === null ? null : t(effectiveEnd),
  };
}

const JAN = '2024-01-01T00:00:00Z';
/** 2.9 % + 30 ¢ of 12,345 ¢ = 388.005 → 388 ¢. Retired by ecommV2 on 2024-06-01. */
export const ecommV1 = configuration(
  'sfc_ecomm_v1',
  'processing_ecomm',
  '2.9',
  30,
  null,
  JAN,
  '2024-06-01T00:00:00Z',
);
/** 3.1 % + 30 ¢ of 12,345 ¢ = 412.695 → 413 ¢. */
export const ecommV2 = configuration(
  'sfc_ecomm_v2',
  'processing_ecomm',
  '3.1',
  30,
  null,
  '2024-06-01T00:00:00Z',
  null,
);
/** 2.6 % + 10 ¢ of 12,345 ¢ = 330.97 → 331 ¢. */
export const cardPresent = configuration('sfc_cp', 'processing_card_present', '2.6', 10, null, JAN, null);
/** 0.8 %, cap 500 ¢: 12,345 ¢ → 98.76 → 99 ¢; 100,000 ¢ → 800 → capped at 500 ¢. */
export const achStandard = configuration('sfc_ach', 'processing_ach', '0.8', 0, 500, JAN, null);
/** 1.5 %, cap 1,000 ¢: 12,345 ¢ → 185.175 → 185 ¢. */
export const achExpedited = configuration(
  'sfc_ach_exp',
  'processing_ach_expedited',
  '1.5',
  0,
  1000,
  JAN,
  null,
);
/** 2.5 % + 25 ¢ of 12,345 ¢ = 333.625 → 334 ¢. Effective [2024-03-01, 2024-09-01). */
export const visaEcomm = configuration(
  'sfc_visa_ecomm',
  'visa_brand_ecomm',
  '2.5',
  25,
  null,
  '2024-03-01T00:00:00Z',
  '2024-09-01T00:00:00Z',
);
/** 2.2 % + 5 ¢ of 12,345 ¢ = 276.59 → 277 ¢. */
export const visaCardPresent = configuration(
  'sfc_visa_cp',
  'visa_brand_card_present',
  '2.2',
  5,
  null,
  JAN,
  null,
);
/** 0.5 % of 12,345 ¢ = 61.725 → 62 ¢. Effective from 2024-01-01. */
export const platform = configuration('sfc_platform', 'platform', '0.5', 0, null, JAN, null);
/** Same pricing, retired on 2024-05-01. */
export const retiredPlatform = configuration(
  'sfc_platform_old',
  'platform',
  '0.5',
  0,
  null,
  JAN,
  '2024-05-01T00:00:00Z',
);

export const BASES = [ecommV1, ecommV2, cardPresent, achStandard, achExpedited];
export const ALL = [...BASES, visaEcomm, visaCardPresent, platform];
export const WITHOUT_PLATFORM = [...BASES, visaEcomm, visaCardPresent];

/** A configuration as finding details show it. */
export const described = (c: FeeConfiguration) => ({
  id: c.id,
  fee_type: c.feeType,
  variable_rate: c.variableRate,
  transaction_fee_cents: c.transactionFeeCents,
  fee_cap_cents: c.feeCapCents,
  effective_start: c.effectiveStart,
  effective_end: c.effectiveEnd,
});

// ---------------------------------------------------------------------------------------------------------
// A payment and what belongs to it.
// ---------------------------------------------------------------------------------------------------------

export const CREATED_AT = t('2024-06-15T12:00:00Z');
const SNAPSHOT_AT = t('2024-06-15T12:00:05Z');

/** A succeeded visa card-not-present payment of 12,345 ¢ created 2024-06-15, charged no fees. */
export function payment(fields: Partial<PaymentToReconcile> = {}): PaymentToReconcile {
  return {
    id: 'py_1',
    accountId: 'acc_1',
    currency: 'usd',
    amount: 12_345,
    status: 'succeeded',
    feeAmount: 0,
    applicationFeeAmount: null,
    createdAt: CREATED_AT,
    methodKind: 'card',
    cardBrand: 'visa',
    expedited: false,
    returned: false,
    errorCode: null,
    errorDescription: null,
    succeededAt: CREATED_AT,
    failedAt: null,
    ...fields,
  };
}

/** A fee priced by a configuration, by an unknown configuration id, or explicitly (null). */
export function fee(
  id: string,
  type: 'processing_fee' | 'platform_fee',
  amount: number,
  source: FeeConfiguration | string | null,
  fields: Partial<PaymentFeeToReconcile> = {},
): PaymentFeeToReconcile {
  return {
    id,
    type,
    amount,
    remainingAmount: null,
    sourceConfigurationId: typeof source === 'string' ? source : (source?.id ?? null),
    sourceFeeType: typeof source === 'string' ? null : (source?.feeType ?? null),
    snapshotUpdatedAt: SNAPSHOT_AT,
    ...fields,
  };
}

export function returnedFee(
  id: string,
  paymentFeeId: string | null,
  returnedAmount: number | null,
  originalAmount: number | null,
  remainingAmount: number | null,
): ReturnedFeeToReconcile {
  return { id, paymentFeeId, returnedAmount, originalAmount, remainingAmount };
}

export function refund(
  id: string,
  amount: number,
  returnedFees: ReturnedFeeToReconcile[] = [],
  options: { status?: string | null; createdAt?: string | null; updatedAt?: string } = {},
): RefundWithReturnedFees {
  const createdAt = options.createdAt === undefined ? '2024-06-16T10:00:00Z' : options.createdAt;
  return {
    id,
    amount,
    status: options.status === undefined ? 'succeeded' : options.status,
    createdAt: createdAt === null ? null : t(createdAt),
    updatedAt: t(options.updatedAt ?? createdAt ?? '2024-06-16T10:00:00Z'),
    returnedFees,
  };
}

/**
 * The facts of one payment: `fees` and the rest default to none, configurations to ALL, and the payment's
 * `feeAmount` to the sum of its fees.
 */
export function facts(
  parts: Partial<Omit<PaymentFacts, 'payment'>> & { payment?: Partial<PaymentToReconcile> } = {},
): PaymentFacts {
  const fees = parts.fees ?? [];
  return {
    fees,
    refunds: [],
    checkout: null,
    disputes: [],
    configurations: ALL,
    earlierDeclines: [],
    ...parts,
    payment: payment({ feeAmount: fees.reduce((sum, each) => sum + each.amount, 0), ...parts.payment }),
  };
}
