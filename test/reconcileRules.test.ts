import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../src/findings/findings.ts';
import {
  type FeeCheckCounts,
  type FeeConfiguration,
  type FeeToReconcile,
  type PaymentToReconcile,
  reconcileFees,
} from '../src/reconciliation/reconcileFees.ts';
import {
  type RefundToReconcile,
  type ReturnedFeeToReconcile,
  reconcileRefunds,
} from '../src/reconciliation/reconcileRefunds.ts';

const t = (iso: string) => new Date(iso);

type Summary = Pick<FindingDraft, 'code' | 'subjectType' | 'subjectId' | 'expected' | 'actual'>;

const finding = (
  code: string,
  subjectType: string,
  subjectId: string,
  expected: unknown,
  actual: unknown,
): Summary => ({ code, subjectType, subjectId, expected, actual });

/** Order-independent: the rules promise a set of findings, not a sequence. */
const byKey = (a: Summary, b: Summary) =>
  `${a.code}|${a.subjectId}`.localeCompare(`${b.code}|${b.subjectId}`);

const summarize = (findings: FindingDraft[]): Summary[] =>
  findings
    .map(({ code, subjectType, subjectId, expected, actual }) => ({
      code,
      subjectType,
      subjectId,
      expected,
      actual,
    }))
    .sort(byKey);

// ---------------------------------------------------------------------------------------------------------
// Fee configurations of one sub account. Every price below is for the default payment of 12,345 ¢.
// ---------------------------------------------------------------------------------------------------------

function configuration(
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
    feeType,
    variableRate,
    transactionFeeCents,
    feeCapCents,
    effectiveStart: t(effectiveStart),
    effectiveEnd: effectiveEnd === null ? null : t(effectiveEnd),
  };
}

/** 2.9 % + 30 ¢ of 12,345 ¢ = 388.005 → 388 ¢. Retired by ecommV2 on 2024-06-01. */
const ecommV1 = configuration(
  'fc_ecomm_v1',
  'processing_ecomm',
  '2.9',
  30,
  null,
  '2024-01-01T00:00:00Z',
  '2024-06-01T00:00:00Z',
);
/** 3.1 % + 30 ¢ of 12,345 ¢ = 412.695 → 413 ¢. */
const ecommV2 = configuration(
  'fc_ecomm_v2',
  'processing_ecomm',
  '3.1',
  30,
  null,
  '2024-06-01T00:00:00Z',
  null,
);
/** 2.6 % + 10 ¢ of 12,345 ¢ = 330.97 → 331 ¢. */
const cardPresent = configuration(
  'fc_cp',
  'processing_card_present',
  '2.6',
  10,
  null,
  '2024-01-01T00:00:00Z',
  null,
);
/** 0.8 %, cap 500 ¢: 12,345 ¢ → 98.76 → 99 ¢; 100,000 ¢ → 800 → capped at 500 ¢. */
const achStandard = configuration('fc_ach', 'processing_ach', '0.8', 0, 500, '2024-01-01T00:00:00Z', null);
/** 1.5 %, cap 1,000 ¢: 12,345 ¢ → 185.175 → 185 ¢. */
const achExpedited = configuration(
  'fc_ach_exp',
  'processing_ach_expedited',
  '1.5',
  0,
  1000,
  '2024-01-01T00:00:00Z',
  null,
);
/** 2.5 % + 25 ¢ of 12,345 ¢ = 333.625 → 334 ¢. Effective [2024-03-01, 2024-09-01). */
const visaEcomm = configuration(
  'fc_visa_ecomm',
  'visa_brand_ecomm',
  '2.5',
  25,
  null,
  '2024-03-01T00:00:00Z',
  '2024-09-01T00:00:00Z',
);
/** 2.2 % + 5 ¢ of 12,345 ¢ = 276.59 → 277 ¢. */
const visaCardPresent = configuration(
  'fc_visa_cp',
  'visa_brand_card_present',
  '2.2',
  5,
  null,
  '2024-01-01T00:00:00Z',
  null,
);
/** 0.5 % of 12,345 ¢ = 61.725 → 62 ¢. Effective from 2024-01-01. */
const platform = configuration('fc_platform', 'platform', '0.5', 0, null, '2024-01-01T00:00:00Z', null);
/** Same pricing, retired on 2024-05-01. */
const retiredPlatform = configuration(
  'fc_platform_old',
  'platform',
  '0.5',
  0,
  null,
  '2024-01-01T00:00:00Z',
  '2024-05-01T00:00:00Z',
);

const BASES = [ecommV1, ecommV2, cardPresent, achStandard, achExpedited];
const ALL = [...BASES, visaEcomm, visaCardPresent, platform];
const WITHOUT_PLATFORM = [...BASES, visaEcomm, visaCardPresent];

const SNAPSHOT_AT = t('2024-06-15T12:00:05Z');

function fee(
  id: string,
  type: 'processing_fee' | 'platform_fee',
  amount: number,
  source: FeeConfiguration | string | null,
): FeeToReconcile {
  return {
    id,
    type,
    amount,
    remainingAmount: null,
    sourceConfigurationId: typeof source === 'string' ? source : (source?.id ?? null),
    sourceFeeType: typeof source === 'string' ? null : (source?.feeType ?? null),
    snapshotUpdatedAt: SNAPSHOT_AT,
  };
}

/** A visa card-not-present payment of 12,345 ¢ created 2024-06-15; `feeAmount` defaults to the sum of the fees. */
function paymentWith(
  fees: FeeToReconcile[],
  overrides: Partial<PaymentToReconcile> = {},
): PaymentToReconcile {
  return {
    id: 'py_1',
    amount: 12_345,
    status: 'succeeded',
    feeAmount: fees.reduce((sum, each) => sum + each.amount, 0),
    applicationFeeAmount: null,
    createdAt: t('2024-06-15T12:00:00Z'),
    methodKind: 'card',
    cardBrand: 'visa',
    expedited: false,
    ...overrides,
  };
}

const mastercard = { cardBrand: 'mastercard' } as const;
const platformFee = fee('pf_platform', 'platform_fee', 62, platform);

type FeeCase = {
  name: string;
  payment?: Partial<PaymentToReconcile>;
  fees: FeeToReconcile[];
  configurations: FeeConfiguration[] | null;
  findings: Summary[];
  counts?: FeeCheckCounts;
};

function runFeeCase(row: FeeCase): void {
  const result = reconcileFees(paymentWith(row.fees, row.payment), row.fees, row.configurations);
  expect(summarize(result.findings)).toEqual([...row.findings].sort(byKey));
  expect(result.counts).toEqual(row.counts ?? { overrides: 0, unverified: 0 });
}

describe('reconcileFees', () => {
  describe('correctly priced payments', () => {
    it.each<FeeCase>([
      {
        name: 'a visa payment priced by its brand configuration has no findings',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a mastercard payment (no brand configuration) priced by the base ecomm configuration has no findings',
        payment: mastercard,
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a card brand spelled in capitals still selects its brand configuration',
        payment: { cardBrand: 'VISA' },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a visa card-present payment priced by the visa card-present configuration has no findings',
        payment: { methodKind: 'card_present' },
        fees: [fee('pf_proc', 'processing_fee', 277, visaCardPresent), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a mastercard card-present payment priced by the base card-present configuration has no findings',
        payment: { methodKind: 'card_present', ...mastercard },
        fees: [fee('pf_proc', 'processing_fee', 331, cardPresent), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a standard ACH payment priced by processing_ach has no findings',
        payment: { methodKind: 'ach', cardBrand: null },
        fees: [fee('pf_proc', 'processing_fee', 99, achStandard), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'an expedited ACH payment priced by processing_ach_expedited has no findings',
        payment: { methodKind: 'ach', cardBrand: null, expedited: true },
        fees: [fee('pf_proc', 'processing_fee', 185, achExpedited), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a capped ACH fee equal to the cap has no findings',
        payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
        fees: [
          fee('pf_proc', 'processing_fee', 500, achStandard),
          fee('pf_platform', 'platform_fee', 500, platform),
        ],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a visa payment made once the brand configuration has ended falls back to the base configuration',
        payment: { createdAt: t('2024-09-01T00:00:00Z') },
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a visa payment made before the brand configuration started is priced by the base in effect then',
        payment: { createdAt: t('2024-02-15T00:00:00Z') },
        fees: [fee('pf_proc', 'processing_fee', 388, ecommV1), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'no platform fee is needed when no platform configuration exists',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: WITHOUT_PLATFORM,
        findings: [],
      },
    ])('$name', runFeeCase);
  });

  describe('fee_total_mismatch', () => {
    it.each<FeeCase>([
      {
        name: 'fees adding up to less than fee_amount are a total mismatch on the payment',
        payment: { feeAmount: 400 },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [finding('fee_total_mismatch', 'payment', 'py_1', 400, 396)],
      },
      {
        name: 'fees adding up to more than fee_amount are a total mismatch on the payment',
        payment: { feeAmount: 334 },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [finding('fee_total_mismatch', 'payment', 'py_1', 334, 396)],
      },
      {
        name: 'an empty breakdown with a non-zero fee_amount is not yet reported, so not a total mismatch',
        payment: { feeAmount: 396 },
        fees: [],
        configurations: WITHOUT_PLATFORM,
        findings: [],
      },
      {
        name: 'fees on a payment whose fee_amount is 0 are a total mismatch',
        payment: { feeAmount: 0 },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: WITHOUT_PLATFORM,
        findings: [finding('fee_total_mismatch', 'payment', 'py_1', 0, 334)],
      },
      {
        name: 'a fee_amount of 0 with no fees is consistent',
        payment: { feeAmount: 0 },
        fees: [],
        configurations: WITHOUT_PLATFORM,
        findings: [],
      },
      {
        name: 'an unknown fee_amount is not compared with the fees',
        payment: { feeAmount: null },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'the total is checked even when the configurations are unknown',
        payment: { feeAmount: 1 },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: null,
        findings: [finding('fee_total_mismatch', 'payment', 'py_1', 1, 334)],
        counts: { overrides: 0, unverified: 1 },
      },
    ])('$name', runFeeCase);

    it('lists the fees it added up in the details', () => {
      const fees = [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee];
      const { findings } = reconcileFees(paymentWith(fees, { feeAmount: 400 }), fees, ALL);
      expect(findings[0]?.details).toMatchObject({ fee_amount: 400, sum_of_fees: 396 });
    });
  });

  describe('fee_amount_mismatch', () => {
    it.each<FeeCase>([
      {
        name: 'a brand-priced fee that differs from the formula is an amount mismatch on the fee',
        fees: [fee('pf_proc', 'processing_fee', 333, visaEcomm), platformFee],
        configurations: ALL,
        findings: [finding('fee_amount_mismatch', 'payment_fee', 'pf_proc', 334, 333)],
      },
      {
        name: 'a base-priced fee that differs from the formula is an amount mismatch on the fee',
        payment: mastercard,
        fees: [fee('pf_proc', 'processing_fee', 400, ecommV2), platformFee],
        configurations: ALL,
        findings: [finding('fee_amount_mismatch', 'payment_fee', 'pf_proc', 413, 400)],
      },
      {
        name: 'a fee above its configuration cap is an amount mismatch against the capped amount',
        payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
        fees: [
          fee('pf_proc', 'processing_fee', 800, achStandard),
          fee('pf_platform', 'platform_fee', 500, platform),
        ],
        configurations: ALL,
        findings: [finding('fee_amount_mismatch', 'payment_fee', 'pf_proc', 500, 800)],
      },
      {
        name: 'a fee rounded down instead of half-up is an amount mismatch',
        payment: mastercard,
        fees: [fee('pf_proc', 'processing_fee', 412, ecommV2), platformFee],
        configurations: ALL,
        findings: [finding('fee_amount_mismatch', 'payment_fee', 'pf_proc', 413, 412)],
      },
      {
        name: 'a wrong platform fee is an amount mismatch on the platform fee',
        fees: [
          fee('pf_proc', 'processing_fee', 334, visaEcomm),
          fee('pf_platform', 'platform_fee', 61, platform),
        ],
        configurations: ALL,
        findings: [finding('fee_amount_mismatch', 'payment_fee', 'pf_platform', 62, 61)],
      },
    ])('$name', runFeeCase);

    it('states the formula it applied in the details', () => {
      const fees = [fee('pf_proc', 'processing_fee', 400, ecommV2), platformFee];
      const { findings } = reconcileFees(paymentWith(fees, mastercard), fees, ALL);
      expect(findings).toHaveLength(1);
      expect(findings[0]?.details).toMatchObject({
        payment_amount: 12_345,
        formula: '12345 × 3.1 % + 30, cap none, half-up',
      });
    });

    it('states the cap in the formula when the configuration has one', () => {
      const fees = [fee('pf_proc', 'processing_fee', 800, achStandard)];
      const { findings } = reconcileFees(
        paymentWith(fees, { methodKind: 'ach', cardBrand: null, amount: 100_000 }),
        fees,
        BASES,
      );
      expect(findings[0]?.details).toMatchObject({ formula: '100000 × 0.8 % + 0, cap 500, half-up' });
    });
  });

  describe('fee_configuration_unknown', () => {
    it.each<FeeCase>([
      {
        name: 'a fee sourced from a configuration missing from the history is unknown, and nothing else is checked',
        fees: [fee('pf_proc', 'processing_fee', 9999, 'fc_gone'), platformFee],
        configurations: ALL,
        findings: [finding('fee_configuration_unknown', 'payment_fee', 'pf_proc', null, 'fc_gone')],
      },
      {
        name: 'every fee with an unknown source is reported on its own',
        fees: [
          fee('pf_proc', 'processing_fee', 334, 'fc_gone'),
          fee('pf_platform', 'platform_fee', 62, 'fc_gone_too'),
        ],
        configurations: ALL,
        findings: [
          finding('fee_configuration_unknown', 'payment_fee', 'pf_proc', null, 'fc_gone'),
          finding('fee_configuration_unknown', 'payment_fee', 'pf_platform', null, 'fc_gone_too'),
        ],
      },
      {
        name: 'an empty configuration history makes every sourced fee unknown',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: [],
        findings: [finding('fee_configuration_unknown', 'payment_fee', 'pf_proc', null, 'fc_visa_ecomm')],
      },
    ])('$name', runFeeCase);
  });

  describe('fee_configuration_not_effective (start-inclusive, end-exclusive)', () => {
    const window = (configuration: FeeConfiguration) => ({
      effective_start: configuration.effectiveStart,
      effective_end: configuration.effectiveEnd,
    });

    it.each<FeeCase>([
      {
        name: 'a payment created a millisecond before the configuration started is outside its window',
        payment: { ...mastercard, createdAt: t('2023-12-31T23:59:59.999Z') },
        fees: [fee('pf_proc', 'processing_fee', 388, ecommV1)],
        configurations: BASES,
        findings: [
          finding(
            'fee_configuration_not_effective',
            'payment_fee',
            'pf_proc',
            window(ecommV1),
            t('2023-12-31T23:59:59.999Z'),
          ),
        ],
      },
      {
        name: 'a payment created exactly at the configuration end is outside its window (end is exclusive)',
        payment: { ...mastercard, createdAt: t('2024-06-01T00:00:00Z') },
        fees: [fee('pf_proc', 'processing_fee', 388, ecommV1)],
        configurations: BASES,
        findings: [
          finding(
            'fee_configuration_not_effective',
            'payment_fee',
            'pf_proc',
            window(ecommV1),
            t('2024-06-01T00:00:00Z'),
          ),
        ],
      },
      {
        name: 'a payment created exactly at the configuration start is inside its window (start is inclusive)',
        payment: { ...mastercard, createdAt: t('2024-06-01T00:00:00Z') },
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2)],
        configurations: BASES,
        findings: [],
      },
      {
        name: 'a payment created a millisecond before the configuration end is inside its window',
        payment: { ...mastercard, createdAt: t('2024-05-31T23:59:59.999Z') },
        fees: [fee('pf_proc', 'processing_fee', 388, ecommV1)],
        configurations: BASES,
        findings: [],
      },
      {
        name: 'a visa fee priced by an ended brand configuration is both not effective and not applicable',
        payment: { createdAt: t('2024-09-01T00:00:00Z') },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_effective',
            'payment_fee',
            'pf_proc',
            window(visaEcomm),
            t('2024-09-01T00:00:00Z'),
          ),
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_ecomm',
            'visa_brand_ecomm',
          ),
        ],
      },
      {
        name: 'a platform fee priced by a retired platform configuration is not effective',
        fees: [
          fee('pf_proc', 'processing_fee', 334, visaEcomm),
          fee('pf_platform', 'platform_fee', 62, retiredPlatform),
        ],
        configurations: [...WITHOUT_PLATFORM, retiredPlatform],
        findings: [
          finding(
            'fee_configuration_not_effective',
            'payment_fee',
            'pf_platform',
            window(retiredPlatform),
            t('2024-06-15T12:00:00Z'),
          ),
        ],
      },
    ])('$name', runFeeCase);
  });

  describe('fee_configuration_not_applicable', () => {
    it.each<FeeCase>([
      {
        name: 'a visa payment priced by the base configuration while the visa brand configuration is effective',
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'visa_brand_ecomm',
            'processing_ecomm',
          ),
        ],
      },
      {
        name: 'a mastercard payment priced by the visa brand configuration',
        payment: mastercard,
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_ecomm',
            'visa_brand_ecomm',
          ),
        ],
      },
      {
        name: 'a visa card-present payment priced by the ecomm configuration',
        payment: { methodKind: 'card_present' },
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'visa_brand_card_present',
            'processing_ecomm',
          ),
        ],
      },
      {
        name: 'a mastercard card-present payment priced by the ecomm configuration',
        payment: { methodKind: 'card_present', ...mastercard },
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_card_present',
            'processing_ecomm',
          ),
        ],
      },
      {
        name: 'a visa card-not-present payment priced by the visa card-present configuration',
        fees: [fee('pf_proc', 'processing_fee', 277, visaCardPresent), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'visa_brand_ecomm',
            'visa_brand_card_present',
          ),
        ],
      },
      {
        name: 'an expedited ACH payment priced by processing_ach',
        payment: { methodKind: 'ach', cardBrand: null, expedited: true },
        fees: [fee('pf_proc', 'processing_fee', 99, achStandard), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_ach_expedited',
            'processing_ach',
          ),
        ],
      },
      {
        name: 'a standard ACH payment priced by processing_ach_expedited',
        payment: { methodKind: 'ach', cardBrand: null },
        fees: [fee('pf_proc', 'processing_fee', 185, achExpedited), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_ach',
            'processing_ach_expedited',
          ),
        ],
      },
      {
        name: 'an ACH payment priced by a card configuration',
        payment: { methodKind: 'ach', cardBrand: null },
        fees: [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'processing_ach',
            'processing_ecomm',
          ),
        ],
      },
      {
        name: 'a platform fee sourced from a processing configuration',
        fees: [
          fee('pf_proc', 'processing_fee', 334, visaEcomm),
          fee('pf_platform', 'platform_fee', 334, visaEcomm),
        ],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_platform',
            'platform',
            'visa_brand_ecomm',
          ),
        ],
      },
      {
        name: 'a processing fee sourced from the platform configuration',
        fees: [fee('pf_proc', 'processing_fee', 62, platform), platformFee],
        configurations: ALL,
        findings: [
          finding(
            'fee_configuration_not_applicable',
            'payment_fee',
            'pf_proc',
            'visa_brand_ecomm',
            'platform',
          ),
        ],
      },
      {
        name: 'a payment of unknown method kind is not checked for applicability',
        payment: { methodKind: null, cardBrand: null },
        fees: [fee('pf_proc', 'processing_fee', 185, achExpedited), platformFee],
        configurations: ALL,
        findings: [],
      },
    ])('$name', runFeeCase);

    it('describes the payment and the configuration in the details', () => {
      const fees = [fee('pf_proc', 'processing_fee', 413, ecommV2), platformFee];
      const { findings } = reconcileFees(paymentWith(fees), fees, ALL);
      expect(findings[0]?.details).toMatchObject({ method_kind: 'card', card_brand: 'visa' });
    });
  });

  describe('platform_fee_missing', () => {
    it.each<FeeCase>([
      {
        name: 'an effective platform configuration without a platform fee is a missing platform fee',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: ALL,
        findings: [finding('platform_fee_missing', 'payment', 'py_1', 62, 0)],
      },
      {
        name: 'the expected platform fee follows the formula and the platform cap',
        payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
        fees: [fee('pf_proc', 'processing_fee', 500, achStandard)],
        configurations: [
          ...BASES,
          configuration('fc_platform_cap', 'platform', '0.5', 0, 300, '2024-01-01T00:00:00Z', null),
        ],
        findings: [finding('platform_fee_missing', 'payment', 'py_1', 300, 0)],
      },
      {
        name: 'a platform configuration retired before the payment was created expects no platform fee',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: [...WITHOUT_PLATFORM, retiredPlatform],
        findings: [],
      },
      {
        name: 'a platform configuration scheduled after the payment was created expects no platform fee',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: [
          ...WITHOUT_PLATFORM,
          configuration('fc_platform_next', 'platform', '0.5', 0, null, '2024-07-01T00:00:00Z', null),
        ],
        findings: [],
      },
      {
        name: 'a payment whose fee_amount is 0 and which has no fees misses its platform fee',
        payment: { feeAmount: 0 },
        fees: [],
        configurations: ALL,
        findings: [finding('platform_fee_missing', 'payment', 'py_1', 62, 0)],
      },
      {
        name: 'a payment whose breakdown is not reported yet (no fees, non-zero fee_amount) is not missing its platform fee',
        payment: { feeAmount: 396 },
        fees: [],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'a payment with neither a breakdown nor a fee_amount is not missing its platform fee',
        payment: { feeAmount: null },
        fees: [],
        configurations: ALL,
        findings: [],
      },
      {
        name: 'an explicit platform fee satisfies the platform configuration',
        fees: [
          fee('pf_proc', 'processing_fee', 334, visaEcomm),
          fee('pf_platform', 'platform_fee', 10, null),
        ],
        configurations: ALL,
        findings: [],
        counts: { overrides: 1, unverified: 0 },
      },
    ])('$name', runFeeCase);
  });

  describe('overrides', () => {
    it.each<FeeCase>([
      {
        name: 'an explicit processing fee (null source) is counted as an override and its amount is not checked',
        fees: [fee('pf_proc', 'processing_fee', 1, null), platformFee],
        configurations: ALL,
        findings: [],
        counts: { overrides: 1, unverified: 0 },
      },
      {
        name: 'explicit processing and platform fees are each counted as an override',
        fees: [fee('pf_proc', 'processing_fee', 1, null), fee('pf_platform', 'platform_fee', 2, null)],
        configurations: ALL,
        findings: [],
        counts: { overrides: 2, unverified: 0 },
      },
      {
        name: 'a legacy application_fee_amount is counted as an override',
        payment: { applicationFeeAmount: 150 },
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm), platformFee],
        configurations: ALL,
        findings: [],
        counts: { overrides: 1, unverified: 0 },
      },
      {
        name: 'an application_fee_amount and an explicit fee are two overrides',
        payment: { applicationFeeAmount: 150 },
        fees: [fee('pf_proc', 'processing_fee', 1, null), platformFee],
        configurations: ALL,
        findings: [],
        counts: { overrides: 2, unverified: 0 },
      },
      {
        name: 'explicit fees are overrides even when the configurations are unknown',
        fees: [fee('pf_proc', 'processing_fee', 1, null), platformFee],
        configurations: null,
        findings: [],
        counts: { overrides: 1, unverified: 1 },
      },
    ])('$name', runFeeCase);
  });

  describe('unverifiable checks', () => {
    it.each<FeeCase>([
      {
        name: 'unknown configurations leave every sourced fee unverified and report no configuration findings',
        payment: mastercard,
        fees: [
          fee('pf_proc', 'processing_fee', 9999, 'fc_gone'),
          fee('pf_platform', 'platform_fee', 1, visaEcomm),
        ],
        configurations: null,
        findings: [],
        counts: { overrides: 0, unverified: 2 },
      },
      {
        name: 'unknown configurations report no missing platform fee',
        fees: [fee('pf_proc', 'processing_fee', 334, visaEcomm)],
        configurations: null,
        findings: [],
        counts: { overrides: 0, unverified: 1 },
      },
      {
        name: 'an unknown creation time leaves every sourced fee unverified and reports no configuration findings',
        payment: { createdAt: null, ...mastercard },
        fees: [
          fee('pf_proc', 'processing_fee', 9999, 'fc_gone'),
          fee('pf_other', 'processing_fee', 1, visaEcomm),
        ],
        configurations: ALL,
        findings: [],
        counts: { overrides: 0, unverified: 2 },
      },
    ])('$name', runFeeCase);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Refunds of a 10,000 ¢ payment with a 320 ¢ processing fee and a 50 ¢ platform fee.
// ---------------------------------------------------------------------------------------------------------

const refundPayment = { id: 'py_1', amount: 10_000, feesHandedBack: false };

function paymentFee(
  id: string,
  amount: number,
  remainingAmount: number | null = null,
  snapshotUpdatedAt = t('2024-06-10T00:00:00Z'),
): FeeToReconcile {
  return {
    id,
    type: id === 'pf_plat' ? 'platform_fee' : 'processing_fee',
    amount,
    remainingAmount,
    sourceConfigurationId: 'fc_any',
    sourceFeeType: null,
    snapshotUpdatedAt,
  };
}

const FEES = [paymentFee('pf_proc', 320), paymentFee('pf_plat', 50)];

function returnedFee(
  id: string,
  paymentFeeId: string | null,
  returnedAmount: number | null,
  originalAmount: number | null,
  remainingAmount: number | null,
): ReturnedFeeToReconcile {
  return { id, paymentFeeId, returnedAmount, originalAmount, remainingAmount };
}

function refund(
  id: string,
  amount: number,
  returnedFees: ReturnedFeeToReconcile[] = [],
  options: { status?: string | null; createdAt?: string | null; updatedAt?: string } = {},
): RefundToReconcile {
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

type RefundCase = {
  name: string;
  payment?: { id: string; amount: number; feesHandedBack: boolean };
  fees: FeeToReconcile[];
  refunds: RefundToReconcile[];
  findings: Summary[];
};

function runRefundCase(row: RefundCase): void {
  const findings = reconcileRefunds(row.payment ?? refundPayment, row.fees, row.refunds);
  expect(summarize(findings)).toEqual([...row.findings].sort(byKey));
}

describe('reconcileRefunds', () => {
  describe('consistent refunds', () => {
    it.each<RefundCase>([
      {
        name: 'a partial refund returning part of the processing fee, seen by a newer payment snapshot, has no findings',
        fees: [
          paymentFee('pf_proc', 320, 192, t('2024-06-16T11:00:00Z')),
          paymentFee('pf_plat', 50, 50, t('2024-06-16T11:00:00Z')),
        ],
        refunds: [
          refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 192)], {
            createdAt: '2024-06-16T10:00:00Z',
            updatedAt: '2024-06-16T10:00:05Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'a full refund returning every fee entirely has no findings',
        fees: [
          paymentFee('pf_proc', 320, 0, t('2024-06-17T00:00:00Z')),
          paymentFee('pf_plat', 50, 0, t('2024-06-17T00:00:00Z')),
        ],
        refunds: [
          refund('re_1', 10_000, [
            returnedFee('rf_1', 'pf_proc', 320, 320, 0),
            returnedFee('rf_2', 'pf_plat', 50, 50, 0),
          ]),
        ],
        findings: [],
      },
      {
        name: 'two partial refunds returning a fee in steps, each leaving the right remainder, have no findings',
        fees: [
          paymentFee('pf_proc', 320, 20, t('2024-06-18T00:00:00Z')),
          paymentFee('pf_plat', 50, 50, t('2024-06-18T00:00:00Z')),
        ],
        refunds: [
          refund('re_b', 3000, [returnedFee('rf_b', 'pf_proc', 100, 320, 20)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
          refund('re_a', 3000, [returnedFee('rf_a', 'pf_proc', 200, 320, 120)], {
            createdAt: '2024-06-16T10:00:00Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'a refund returning no fees has no findings',
        fees: FEES,
        refunds: [refund('re_1', 4000)],
        findings: [],
      },
      {
        name: 'a payment without refunds whose fees show their full remaining amount has no findings',
        fees: [paymentFee('pf_proc', 320, 320), paymentFee('pf_plat', 50, 50)],
        refunds: [],
        findings: [],
      },
      {
        name: 'returned fees with unknown amounts are not compared',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', null, null, null)])],
        findings: [],
      },
    ])('$name', runRefundCase);
  });

  describe('refund_exceeds_payment', () => {
    it.each<RefundCase>([
      {
        name: 'succeeded refunds adding up to more than the payment exceed it',
        fees: FEES,
        refunds: [refund('re_1', 6000), refund('re_2', 5000, [], { createdAt: '2024-06-17T10:00:00Z' })],
        findings: [finding('refund_exceeds_payment', 'payment', 'py_1', 10_000, 11_000)],
      },
      {
        name: 'a single succeeded refund larger than the payment exceeds it',
        fees: FEES,
        refunds: [refund('re_1', 10_001)],
        findings: [finding('refund_exceeds_payment', 'payment', 'py_1', 10_000, 10_001)],
      },
      {
        name: 'succeeded refunds adding up to exactly the payment do not exceed it',
        fees: FEES,
        refunds: [refund('re_1', 6000), refund('re_2', 4000, [], { createdAt: '2024-06-17T10:00:00Z' })],
        findings: [],
      },
      {
        name: 'a failed refund does not count towards the refunded total',
        fees: FEES,
        refunds: [
          refund('re_1', 6000),
          refund('re_2', 5000, [], { status: 'failed', createdAt: '2024-06-17T10:00:00Z' }),
        ],
        findings: [],
      },
      {
        name: 'a pending refund does not count towards the refunded total',
        fees: FEES,
        refunds: [
          refund('re_1', 6000),
          refund('re_2', 5000, [], { status: 'pending', createdAt: '2024-06-17T10:00:00Z' }),
        ],
        findings: [],
      },
      {
        name: 'only the succeeded refunds are added up when some failed',
        fees: FEES,
        refunds: [
          refund('re_1', 6000),
          refund('re_2', 9000, [], { status: 'failed', createdAt: '2024-06-17T10:00:00Z' }),
          refund('re_3', 4500, [], { createdAt: '2024-06-18T10:00:00Z' }),
        ],
        findings: [finding('refund_exceeds_payment', 'payment', 'py_1', 10_000, 10_500)],
      },
    ])('$name', runRefundCase);
  });

  describe('returned_fee_unknown', () => {
    it.each<RefundCase>([
      {
        name: 'a returned fee naming a fee the payment does not have is unknown, reported on the refund',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_other', 128, 320, 192)])],
        findings: [finding('returned_fee_unknown', 'refund', 're_1', ['pf_proc', 'pf_plat'], 'pf_other')],
      },
      {
        name: 'a returned fee naming no fee at all is unknown',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', null, 128, 320, 192)])],
        findings: [finding('returned_fee_unknown', 'refund', 're_1', ['pf_proc', 'pf_plat'], null)],
      },
      {
        name: 'a returned fee is not reported unknown while the payment has no fees yet',
        fees: [],
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 192)])],
        findings: [],
      },
      {
        name: 'a returned fee of a failed refund is not checked',
        fees: FEES,
        refunds: [
          refund('re_1', 4000, [returnedFee('rf_1', 'pf_other', 128, 320, 192)], { status: 'failed' }),
        ],
        findings: [],
      },
    ])('$name', runRefundCase);
  });

  describe('returned_fee_original_mismatch', () => {
    it.each<RefundCase>([
      {
        name: "a returned fee whose original_amount differs from the fee's amount is an original mismatch",
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 300, 192)])],
        findings: [finding('returned_fee_original_mismatch', 'returned_fee', 'rf_1', 320, 300)],
      },
      {
        name: 'a returned fee without an original_amount is not compared',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, null, 192)])],
        findings: [],
      },
    ])('$name', runRefundCase);
  });

  describe('returned_fee_exceeds_remaining', () => {
    it.each<RefundCase>([
      {
        name: 'a single refund returning more than the whole fee exceeds what was left',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_plat', 60, 50, null)])],
        findings: [finding('returned_fee_exceeds_remaining', 'returned_fee', 'rf_1', 50, 60)],
      },
      {
        name: 'the later of two refunds (by creation time) returning more than was left of the fee exceeds it',
        fees: FEES,
        // Listed newest first and with the older refund updated last: only the creation order counts.
        refunds: [
          refund('re_a', 3000, [returnedFee('rf_late', 'pf_proc', 150, 320, null)], {
            createdAt: '2024-06-17T10:00:00Z',
            updatedAt: '2024-06-17T10:00:05Z',
          }),
          refund('re_b', 3000, [returnedFee('rf_early', 'pf_proc', 200, 320, 120)], {
            createdAt: '2024-06-16T10:00:00Z',
            updatedAt: '2024-06-18T10:00:00Z',
          }),
        ],
        findings: [finding('returned_fee_exceeds_remaining', 'returned_fee', 'rf_late', 120, 150)],
      },
      {
        name: 'two refunds returning exactly the whole fee between them do not exceed it',
        fees: FEES,
        refunds: [
          refund('re_1', 3000, [returnedFee('rf_1', 'pf_proc', 200, 320, 120)]),
          refund('re_2', 3000, [returnedFee('rf_2', 'pf_proc', 120, 320, 0)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'fees returned by a failed refund are not counted as returned',
        fees: FEES,
        refunds: [
          refund('re_1', 3000, [returnedFee('rf_1', 'pf_proc', 320, 320, 0)], { status: 'failed' }),
          refund('re_2', 3000, [returnedFee('rf_2', 'pf_proc', 320, 320, 0)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'returned amounts are tracked per fee',
        fees: FEES,
        refunds: [
          refund('re_1', 3000, [
            returnedFee('rf_1', 'pf_proc', 300, 320, 20),
            returnedFee('rf_2', 'pf_plat', 40, 50, 10),
          ]),
          refund('re_2', 3000, [returnedFee('rf_3', 'pf_plat', 20, 50, null)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [finding('returned_fee_exceeds_remaining', 'returned_fee', 'rf_3', 10, 20)],
      },
    ])('$name', runRefundCase);

    it('states how much had been returned before in the details', () => {
      const findings = reconcileRefunds(refundPayment, FEES, [
        refund('re_1', 3000, [returnedFee('rf_1', 'pf_proc', 200, 320, 120)]),
        refund('re_2', 3000, [returnedFee('rf_2', 'pf_proc', 150, 320, null)], {
          createdAt: '2024-06-17T10:00:00Z',
        }),
      ]);
      expect(findings).toHaveLength(1);
      expect(findings[0]?.details).toMatchObject({ refund_id: 're_2', returned_before: 200 });
    });
  });

  describe('returned_fee_remaining_mismatch', () => {
    it.each<RefundCase>([
      {
        name: 'a returned fee whose remaining_amount is not original minus returned is a remaining mismatch',
        fees: FEES,
        refunds: [refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 200)])],
        findings: [finding('returned_fee_remaining_mismatch', 'returned_fee', 'rf_1', 192, 200)],
      },
      {
        name: 'a second refund whose remaining_amount ignores the first refund is a remaining mismatch',
        fees: FEES,
        refunds: [
          refund('re_1', 3000, [returnedFee('rf_1', 'pf_proc', 100, 320, 220)]),
          refund('re_2', 3000, [returnedFee('rf_2', 'pf_proc', 50, 320, 270)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [finding('returned_fee_remaining_mismatch', 'returned_fee', 'rf_2', 170, 270)],
      },
      {
        name: 'a refund whose remaining_amount counts a failed refund is a remaining mismatch',
        fees: FEES,
        refunds: [
          refund('re_1', 3000, [returnedFee('rf_1', 'pf_proc', 100, 320, 220)], { status: 'failed' }),
          refund('re_2', 3000, [returnedFee('rf_2', 'pf_proc', 50, 320, 170)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [finding('returned_fee_remaining_mismatch', 'returned_fee', 'rf_2', 270, 170)],
      },
    ])('$name', runRefundCase);
  });

  describe('fee_remaining_mismatch', () => {
    const refunded = () => [
      refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 192)], {
        createdAt: '2024-06-16T10:00:00Z',
        updatedAt: '2024-06-16T10:00:05Z',
      }),
    ];

    it.each<RefundCase>([
      {
        name: 'a payment snapshot newer than the refund still showing the full fee is a remaining mismatch',
        fees: [
          paymentFee('pf_proc', 320, 320, t('2024-06-16T11:00:00Z')),
          paymentFee('pf_plat', 50, 50, t('2024-06-16T11:00:00Z')),
        ],
        refunds: refunded(),
        findings: [finding('fee_remaining_mismatch', 'payment_fee', 'pf_proc', 192, 320)],
      },
      {
        name: 'a payment snapshot as new as the refund is evidence of the remaining amount',
        fees: [paymentFee('pf_proc', 320, 320, t('2024-06-16T10:00:05Z'))],
        refunds: refunded(),
        findings: [finding('fee_remaining_mismatch', 'payment_fee', 'pf_proc', 192, 320)],
      },
      {
        name: 'a payment snapshot older than the refund is no evidence of the remaining amount',
        fees: [paymentFee('pf_proc', 320, 320, t('2024-06-16T10:00:04.999Z'))],
        refunds: refunded(),
        findings: [],
      },
      {
        name: 'a payment snapshot older than the newest of several succeeded refunds is no evidence',
        fees: [paymentFee('pf_proc', 320, 192, t('2024-06-16T11:00:00Z'))],
        refunds: [
          ...refunded(),
          refund('re_2', 1000, [returnedFee('rf_2', 'pf_proc', 20, 320, 172)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'a newer payment snapshot must subtract every succeeded refund',
        fees: [paymentFee('pf_proc', 320, 192, t('2024-06-18T00:00:00Z'))],
        refunds: [
          ...refunded(),
          refund('re_2', 1000, [returnedFee('rf_2', 'pf_proc', 20, 320, 172)], {
            createdAt: '2024-06-17T10:00:00Z',
          }),
        ],
        findings: [finding('fee_remaining_mismatch', 'payment_fee', 'pf_proc', 172, 192)],
      },
      {
        name: 'fees returned by a failed refund are not subtracted from the remaining amount',
        fees: [paymentFee('pf_proc', 320, 192, t('2024-06-16T11:00:00Z'))],
        refunds: [
          refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 192)], {
            status: 'failed',
            updatedAt: '2024-06-16T10:00:05Z',
          }),
        ],
        findings: [finding('fee_remaining_mismatch', 'payment_fee', 'pf_proc', 320, 192)],
      },
      {
        name: 'a failed refund newer than the snapshot does not make the snapshot stale',
        fees: [paymentFee('pf_proc', 320, 320, t('2024-06-16T11:00:00Z'))],
        refunds: [
          refund('re_1', 4000, [returnedFee('rf_1', 'pf_proc', 128, 320, 192)], {
            status: 'failed',
            createdAt: '2024-06-16T12:00:00Z',
          }),
        ],
        findings: [],
      },
      {
        name: 'a fee without refunds whose remaining amount is below its amount is a remaining mismatch',
        fees: [paymentFee('pf_proc', 320, 300)],
        refunds: [],
        findings: [finding('fee_remaining_mismatch', 'payment_fee', 'pf_proc', 320, 300)],
      },
      {
        name: 'a fee without a remaining amount is not compared',
        fees: [paymentFee('pf_proc', 320, null, t('2024-06-16T11:00:00Z'))],
        refunds: refunded(),
        findings: [],
      },
    ])('$name', runRefundCase);
  });
});
