import { describe, it } from 'vitest';
import { type FeeCase, notApplicable, runFeeCase } from './feeFindings.ts';
import {
  ALL,
  achExpedited,
  achStandard,
  ecommV2,
  fee,
  platform,
  visaCardPresent,
  visaEcomm,
} from './fixtures.ts';

const mastercard = { cardBrand: 'mastercard' } as const;
const cardPresent = { methodKind: 'card_present' } as const;
const ach = { methodKind: 'ach', cardBrand: null } as const;
const platformFee = fee('pyfee_platform', 'platform_fee', 62, platform);

// The details name the payment's method, brand and speed, and the configuration that priced the fee.
describe('fee_configuration_not_applicable', () => {
  it.each<FeeCase>([
    {
      name: 'a visa payment priced by the base configuration while the visa brand configuration is effective',
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [notApplicable('pyfee_proc', 'processing_fee', 'visa_brand_ecomm', ecommV2, 413 - 334)],
    },
    {
      name: 'a mastercard payment priced by the visa brand configuration',
      payment: mastercard,
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee],
      configurations: ALL,
      findings: [
        notApplicable('pyfee_proc', 'processing_fee', 'processing_ecomm', visaEcomm, 413 - 334, mastercard),
      ],
    },
    {
      name: 'a visa card-present payment priced by the ecomm configuration',
      payment: cardPresent,
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [
        notApplicable(
          'pyfee_proc',
          'processing_fee',
          'visa_brand_card_present',
          ecommV2,
          413 - 277,
          cardPresent,
        ),
      ],
    },
    {
      name: 'a mastercard card-present payment priced by the ecomm configuration',
      payment: { ...cardPresent, ...mastercard },
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [
        notApplicable('pyfee_proc', 'processing_fee', 'processing_card_present', ecommV2, 413 - 331, {
          ...cardPresent,
          ...mastercard,
        }),
      ],
    },
    {
      name: 'a visa card-not-present payment priced by the visa card-present configuration',
      fees: [fee('pyfee_proc', 'processing_fee', 277, visaCardPresent), platformFee],
      configurations: ALL,
      findings: [
        notApplicable('pyfee_proc', 'processing_fee', 'visa_brand_ecomm', visaCardPresent, 334 - 277),
      ],
    },
    {
      name: 'an expedited ACH payment priced by processing_ach',
      payment: { ...ach, expedited: true },
      fees: [fee('pyfee_proc', 'processing_fee', 99, achStandard), platformFee],
      configurations: ALL,
      findings: [
        notApplicable('pyfee_proc', 'processing_fee', 'processing_ach_expedited', achStandard, 185 - 99, {
          ...ach,
          expedited: true,
        }),
      ],
    },
    {
      name: 'a standard ACH payment priced by processing_ach_expedited',
      payment: ach,
      fees: [fee('pyfee_proc', 'processing_fee', 185, achExpedited), platformFee],
      configurations: ALL,
      findings: [
        notApplicable('pyfee_proc', 'processing_fee', 'processing_ach', achExpedited, 185 - 99, ach),
      ],
    },
    {
      name: 'an ACH payment priced by a card configuration',
      payment: ach,
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2), platformFee],
      configurations: ALL,
      findings: [notApplicable('pyfee_proc', 'processing_fee', 'processing_ach', ecommV2, 413 - 99, ach)],
    },
    {
      name: 'a platform fee sourced from a processing configuration',
      fees: [
        fee('pyfee_proc', 'processing_fee', 334, visaEcomm),
        fee('pyfee_platform', 'platform_fee', 334, visaEcomm),
      ],
      configurations: ALL,
      findings: [notApplicable('pyfee_platform', 'platform_fee', 'platform', visaEcomm, 334 - 62)],
    },
    {
      name: 'a processing fee sourced from the platform configuration',
      fees: [fee('pyfee_proc', 'processing_fee', 62, platform), platformFee],
      configurations: ALL,
      findings: [notApplicable('pyfee_proc', 'processing_fee', 'visa_brand_ecomm', platform, 334 - 62)],
    },
    {
      name: 'a payment of unknown method kind is not checked for applicability',
      payment: { methodKind: null, cardBrand: null },
      fees: [fee('pyfee_proc', 'processing_fee', 185, achExpedited), platformFee],
      configurations: ALL,
      findings: [],
    },
  ])('$name', runFeeCase);
});
