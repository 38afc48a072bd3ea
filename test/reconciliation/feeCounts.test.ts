import { describe, it } from 'vitest';
import { type FeeCase, runFeeCase } from './feeFindings.ts';
import { ALL, fee, platform, visaEcomm } from './fixtures.ts';

const platformFee = fee('pyfee_platform', 'platform_fee', 62, platform);

describe('overrides: counted, never checked', () => {
  it.each<FeeCase>([
    {
      name: 'an explicit processing fee (null source) is counted as an override and its amount is not checked',
      fees: [fee('pyfee_proc', 'processing_fee', 1, null), platformFee],
      configurations: ALL,
      findings: [],
      counts: { overrides: 1, unverified: 0 },
    },
    {
      name: 'explicit processing and platform fees are each counted as an override',
      fees: [fee('pyfee_proc', 'processing_fee', 1, null), fee('pyfee_platform', 'platform_fee', 2, null)],
      configurations: ALL,
      findings: [],
      counts: { overrides: 2, unverified: 0 },
    },
    {
      name: 'a legacy application_fee_amount is counted as an override',
      payment: { applicationFeeAmount: 150 },
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee],
      configurations: ALL,
      findings: [],
      counts: { overrides: 1, unverified: 0 },
    },
    {
      name: 'an application_fee_amount and an explicit fee are two overrides',
      payment: { applicationFeeAmount: 150 },
      fees: [fee('pyfee_proc', 'processing_fee', 1, null), platformFee],
      configurations: ALL,
      findings: [],
      counts: { overrides: 2, unverified: 0 },
    },
    {
      name: 'explicit fees are overrides even when the configurations are unknown',
      fees: [fee('pyfee_proc', 'processing_fee', 1, null), platformFee],
      configurations: null,
      findings: [],
      counts: { overrides: 1, unverified: 1 },
    },
  ])('$name', runFeeCase);
});

describe('unverifiable checks: counted, never reported', () => {
  it.each<FeeCase>([
    {
      name: 'unknown configurations leave every sourced fee unverified and report no configuration findings',
      payment: { cardBrand: 'mastercard' },
      fees: [
        fee('pyfee_proc', 'processing_fee', 9999, 'sfc_gone'),
        fee('pyfee_platform', 'platform_fee', 1, visaEcomm),
      ],
      configurations: null,
      findings: [],
      counts: { overrides: 0, unverified: 2 },
    },
    {
      name: 'unknown configurations report no missing platform fee',
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)],
      configurations: null,
      findings: [],
      counts: { overrides: 0, unverified: 1 },
    },
    {
      name: 'an unknown creation time leaves every sourced fee unverified and reports no configuration findings',
      payment: { createdAt: null, cardBrand: 'mastercard' },
      fees: [
        fee('pyfee_proc', 'processing_fee', 9999, 'sfc_gone'),
        fee('pyfee_other', 'processing_fee', 1, visaEcomm),
      ],
      configurations: ALL,
      findings: [],
      counts: { overrides: 0, unverified: 2 },
    },
    {
      name: 'a payment mode without fee configuration types leaves its sourced fees unverified',
      payment: { methodKind: 'other', cardBrand: null },
      fees: [fee('pyfee_proc', 'processing_fee', 9999, visaEcomm)],
      configurations: ALL,
      findings: [],
      counts: { overrides: 0, unverified: 1 },
    },
    {
      name: 'a failed payment of such a mode charged no fees has nothing unverified',
      payment: { methodKind: 'other', cardBrand: null, status: 'failed' },
      fees: [],
      configurations: ALL,
      findings: [],
    },
  ])('$name', runFeeCase);
});
