import { describe, it } from 'vitest';
import { amountMismatch, type FeeCase, runFeeCase, unknownConfiguration } from './feeFindings.ts';
import { ALL, achStandard, BASES, ecommV2, fee, platform, visaEcomm } from './fixtures.ts';

const mastercard = { cardBrand: 'mastercard' } as const;
const bigAch = { methodKind: 'ach', cardBrand: null, amount: 100_000 } as const;
const platformFee = fee('pyfee_platform', 'platform_fee', 62, platform);

describe('fee_amount_mismatch (the formula is stated in the details)', () => {
  it.each<FeeCase>([
    {
      name: 'a brand-priced fee that differs from the formula is an amount mismatch on the fee',
      fees: [fee('pyfee_proc', 'processing_fee', 333, visaEcomm), platformFee],
      configurations: ALL,
      findings: [amountMismatch('pyfee_proc', visaEcomm, 334, 333, '12345 × 2.5 % + 25, cap none, half-up')],
    },
    {
      name: 'a base-priced fee that differs from the formula is an amount mismatch on the fee',
      payment: mastercard,
      fees: [fee('pyfee_proc', 'processing_fee', 400, ecommV2), platformFee],
      configurations: ALL,
      findings: [amountMismatch('pyfee_proc', ecommV2, 413, 400, '12345 × 3.1 % + 30, cap none, half-up')],
    },
    {
      name: 'a fee above its configuration cap is an amount mismatch against the capped amount',
      payment: bigAch,
      fees: [
        fee('pyfee_proc', 'processing_fee', 800, achStandard),
        fee('pyfee_platform', 'platform_fee', 500, platform),
      ],
      configurations: ALL,
      findings: [
        amountMismatch('pyfee_proc', achStandard, 500, 800, '100000 × 0.8 % + 0, cap 500, half-up', 100_000),
      ],
    },
    {
      name: 'the cap is stated in the formula, with or without a platform configuration',
      payment: bigAch,
      fees: [fee('pyfee_proc', 'processing_fee', 800, achStandard)],
      configurations: BASES,
      findings: [
        amountMismatch('pyfee_proc', achStandard, 500, 800, '100000 × 0.8 % + 0, cap 500, half-up', 100_000),
      ],
    },
    {
      name: 'a fee rounded down instead of half-up is an amount mismatch',
      payment: mastercard,
      fees: [fee('pyfee_proc', 'processing_fee', 412, ecommV2), platformFee],
      configurations: ALL,
      findings: [amountMismatch('pyfee_proc', ecommV2, 413, 412, '12345 × 3.1 % + 30, cap none, half-up')],
    },
    {
      name: 'a wrong platform fee is an amount mismatch on the platform fee',
      fees: [
        fee('pyfee_proc', 'processing_fee', 334, visaEcomm),
        fee('pyfee_platform', 'platform_fee', 61, platform),
      ],
      configurations: ALL,
      findings: [amountMismatch('pyfee_platform', platform, 62, 61, '12345 × 0.5 % + 0, cap none, half-up')],
    },
  ])('$name', runFeeCase);
});

describe('fee_configuration_unknown', () => {
  it.each<FeeCase>([
    {
      name: 'a fee sourced from a configuration missing from the history is unknown, and nothing else is checked',
      fees: [fee('pyfee_proc', 'processing_fee', 9999, 'sfc_gone'), platformFee],
      configurations: ALL,
      findings: [unknownConfiguration('pyfee_proc', 'sfc_gone', null, 9999)],
    },
    {
      name: 'every fee with an unknown source is reported on its own',
      fees: [
        fee('pyfee_proc', 'processing_fee', 334, 'sfc_gone'),
        fee('pyfee_platform', 'platform_fee', 62, 'sfc_gone_too'),
      ],
      configurations: ALL,
      findings: [
        unknownConfiguration('pyfee_proc', 'sfc_gone', null, 334),
        unknownConfiguration('pyfee_platform', 'sfc_gone_too', null, 62),
      ],
    },
    {
      name: 'an empty configuration history makes every sourced fee unknown, naming its source fee type',
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)],
      configurations: [],
      findings: [unknownConfiguration('pyfee_proc', 'sfc_visa_ecomm', 'visa_brand_ecomm', 334)],
    },
  ])('$name', runFeeCase);
});
