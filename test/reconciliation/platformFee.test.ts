import { describe, it } from 'vitest';
import { type FeeCase, platformMissing, runFeeCase } from './feeFindings.ts';
import {
  ALL,
  achStandard,
  BASES,
  configuration,
  fee,
  platform,
  retiredPlatform,
  visaEcomm,
  WITHOUT_PLATFORM,
} from './fixtures.ts';

const visaFee = [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)];
const cappedPlatform = configuration(
  'sfc_platform_cap',
  'platform',
  '0.5',
  0,
  300,
  '2024-01-01T00:00:00Z',
  null,
);

// The details name the platform configuration and when the payment was created.
describe('platform_fee_missing', () => {
  it.each<FeeCase>([
    {
      name: 'an effective platform configuration without a platform fee is a missing platform fee',
      fees: visaFee,
      configurations: ALL,
      findings: [platformMissing(62, platform)],
    },
    {
      name: 'the expected platform fee follows the formula and the platform cap',
      payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
      fees: [fee('pyfee_proc', 'processing_fee', 500, achStandard)],
      configurations: [...BASES, cappedPlatform],
      findings: [platformMissing(300, cappedPlatform)],
    },
    {
      name: 'a platform configuration retired before the payment was created expects no platform fee',
      fees: visaFee,
      configurations: [...WITHOUT_PLATFORM, retiredPlatform],
      findings: [],
    },
    {
      name: 'a platform configuration scheduled after the payment was created expects no platform fee',
      fees: visaFee,
      configurations: [
        ...WITHOUT_PLATFORM,
        configuration('sfc_platform_next', 'platform', '0.5', 0, null, '2024-07-01T00:00:00Z', null),
      ],
      findings: [],
    },
    {
      name: 'a payment whose fee_amount is 0 and which has no fees misses its platform fee',
      payment: { feeAmount: 0 },
      fees: [],
      configurations: ALL,
      findings: [platformMissing(62, platform)],
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
      fees: [...visaFee, fee('pyfee_platform', 'platform_fee', 10, null)],
      configurations: ALL,
      findings: [],
      counts: { overrides: 1, unverified: 0 },
    },
    {
      name: 'a failed payment charged no fees is not missing its platform fee',
      payment: { status: 'failed', feeAmount: 0 },
      fees: [],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a voided payment charged no fees is not missing its platform fee',
      payment: { status: 'canceled', feeAmount: 0 },
      fees: [],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a payment mode without fee configuration types is not checked for a platform fee, but counted',
      payment: { methodKind: 'other', feeAmount: 0 },
      fees: [],
      configurations: ALL,
      findings: [],
      counts: { overrides: 0, unverified: 1 },
    },
  ])('$name', runFeeCase);
});
