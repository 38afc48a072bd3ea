import { describe, it } from 'vitest';
import { type FeeCase, runFeeCase, totalMismatch } from './feeFindings.ts';
import {
  ALL,
  achExpedited,
  achStandard,
  cardPresent,
  ecommV1,
  ecommV2,
  fee,
  platform,
  t,
  visaCardPresent,
  visaEcomm,
  WITHOUT_PLATFORM,
} from './fixtures.ts';

const mastercard = { cardBrand: 'mastercard' } as const;
const platformFee = fee('pyfee_platform', 'platform_fee', 62, platform);

describe('correctly priced payments', () => {
  it.each<FeeCase>([
    {
      name: 'a visa payment priced by its brand configuration has no findings',
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a mastercard payment (no brand configuration) priced by the base ecomm configuration has no findings',
      payment: mastercard,
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a card brand spelled in capitals still selects its brand configuration',
      payment: { cardBrand: 'VISA' },
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a visa card-present payment priced by the visa card-present configuration has no findings',
      payment: { methodKind: 'card_present' },
      fees: [fee('pyfee_proc', 'processing_fee', 277, visaCardPresent), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a mastercard card-present payment priced by the base card-present configuration has no findings',
      payment: { methodKind: 'card_present', ...mastercard },
      fees: [fee('pyfee_proc', 'processing_fee', 331, cardPresent), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a standard ACH payment priced by processing_ach has no findings',
      payment: { methodKind: 'ach', cardBrand: null },
      fees: [fee('pyfee_proc', 'processing_fee', 99, achStandard), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'an expedited ACH payment priced by processing_ach_expedited has no findings',
      payment: { methodKind: 'ach', cardBrand: null, expedited: true },
      fees: [fee('pyfee_proc', 'processing_fee', 185, achExpedited), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a capped ACH fee equal to the cap has no findings',
      payment: { methodKind: 'ach', cardBrand: null, amount: 100_000 },
      fees: [
        fee('pyfee_proc', 'processing_fee', 500, achStandard),
        fee('pyfee_platform', 'platform_fee', 500, platform),
      ],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a visa payment made once the brand configuration has ended falls back to the base configuration',
      payment: { createdAt: t('2024-09-01T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'a visa payment made before the brand configuration started is priced by the base in effect then',
      payment: { createdAt: t('2024-02-15T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 388, ecommV1), platformFee],
      configurations: ALL,
      findings: [],
    },
    {
      name: 'no platform fee is needed when no platform configuration exists',
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)],
      configurations: WITHOUT_PLATFORM,
      findings: [],
    },
  ])('$name', runFeeCase);
});

describe('fee_total_mismatch', () => {
  const visaFees = [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee];
  const visaFee = [fee('pyfee_proc', 'processing_fee', 334, visaEcomm)];

  it.each<FeeCase>([
    {
      name: 'fees adding up to less than fee_amount are a total mismatch on the payment, listing the fees',
      payment: { feeAmount: 400 },
      fees: visaFees,
      configurations: ALL,
      findings: [totalMismatch(400, 396, visaFees)],
    },
    {
      name: 'fees adding up to more than fee_amount are a total mismatch on the payment',
      payment: { feeAmount: 334 },
      fees: visaFees,
      configurations: ALL,
      findings: [totalMismatch(334, 396, visaFees)],
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
      fees: visaFee,
      configurations: WITHOUT_PLATFORM,
      findings: [totalMismatch(0, 334, visaFee)],
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
      fees: visaFees,
      configurations: ALL,
      findings: [],
    },
    {
      name: 'the total is checked even when the configurations are unknown',
      payment: { feeAmount: 1 },
      fees: visaFee,
      configurations: null,
      findings: [totalMismatch(1, 334, visaFee)],
      counts: { overrides: 0, unverified: 1 },
    },
  ])('$name', runFeeCase);
});
