import { describe, it } from 'vitest';
import { type FeeCase, notApplicable, notEffective, runFeeCase } from './feeFindings.ts';
import {
  ALL,
  BASES,
  CREATED_AT,
  ecommV1,
  ecommV2,
  fee,
  platform,
  retiredPlatform,
  t,
  visaEcomm,
  WITHOUT_PLATFORM,
} from './fixtures.ts';

const mastercard = { cardBrand: 'mastercard' } as const;
const platformFee = fee('pyfee_platform', 'platform_fee', 62, platform);

describe('fee_configuration_not_effective (start-inclusive, end-exclusive)', () => {
  it.each<FeeCase>([
    {
      name: 'a payment created a millisecond before the configuration started is outside its window',
      payment: { ...mastercard, createdAt: t('2023-12-31T23:59:59.999Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 388, ecommV1)],
      configurations: BASES,
      // No base configuration was in effect yet: nothing to measure the fee against.
      findings: [notEffective('pyfee_proc', ecommV1, t('2023-12-31T23:59:59.999Z'), null)],
    },
    {
      name: 'a payment created exactly at the configuration end is outside its window (end is exclusive)',
      payment: { ...mastercard, createdAt: t('2024-06-01T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 388, ecommV1)],
      configurations: BASES,
      // ecommV2, in effect then, gives 413 ¢.
      findings: [notEffective('pyfee_proc', ecommV1, t('2024-06-01T00:00:00Z'), 413 - 388)],
    },
    {
      name: 'a payment created exactly at the configuration start is inside its window (start is inclusive)',
      payment: { ...mastercard, createdAt: t('2024-06-01T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 413, ecommV2)],
      configurations: BASES,
      findings: [],
    },
    {
      name: 'a payment created a millisecond before the configuration end is inside its window',
      payment: { ...mastercard, createdAt: t('2024-05-31T23:59:59.999Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 388, ecommV1)],
      configurations: BASES,
      findings: [],
    },
    {
      name: 'a visa fee priced by an ended brand configuration is both not effective and not applicable',
      payment: { createdAt: t('2024-09-01T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 334, visaEcomm), platformFee],
      configurations: ALL,
      findings: [
        // No visa brand configuration is in effect then, so the rules pick the base one: ecommV2 gives 413 ¢.
        notEffective('pyfee_proc', visaEcomm, t('2024-09-01T00:00:00Z'), 413 - 334),
        notApplicable('pyfee_proc', 'processing_fee', 'processing_ecomm', visaEcomm, 413 - 334),
      ],
    },
    {
      name: 'a fee of a payment of unknown method kind is measured against its own type in effect then',
      payment: { methodKind: null, cardBrand: null, createdAt: t('2024-06-01T00:00:00Z') },
      fees: [fee('pyfee_proc', 'processing_fee', 388, ecommV1)],
      configurations: BASES,
      // The rules pick nothing without a method kind; ecommV2, of the fee's own type, gives 413 ¢.
      findings: [notEffective('pyfee_proc', ecommV1, t('2024-06-01T00:00:00Z'), 413 - 388)],
    },
    {
      name: 'a platform fee priced by a retired platform configuration is not effective',
      fees: [
        fee('pyfee_proc', 'processing_fee', 334, visaEcomm),
        fee('pyfee_platform', 'platform_fee', 62, retiredPlatform),
      ],
      configurations: [...WITHOUT_PLATFORM, retiredPlatform],
      findings: [notEffective('pyfee_platform', retiredPlatform, CREATED_AT, null)],
    },
  ])('$name', runFeeCase);
});
