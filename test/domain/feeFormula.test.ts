import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateFee, parseRate } from '../../src/domain/feeFormula.ts';
import {
  effectivePlatformConfiguration,
  expectedProcessingType,
  isEffectiveAt,
} from '../../src/domain/feeSelection.ts';

const pricing = (
  variableRate: string | number,
  transactionFeeCents = 0,
  feeCapCents: number | null = null,
) => ({
  variableRate,
  transactionFeeCents,
  feeCapCents,
});

describe('the seed fee formula', () => {
  it.each([
    ['2.75 % of 1,234 ¢ is 33.935, rounded half-up', 1234, pricing(2.75), 34],
    ['exactly .5 rounds up', 100, pricing(0.5), 1],
    ['just under .5 rounds down', 149, pricing(0.3), 0],
    ['2.9 % + 30 ¢ of 10,000 ¢', 10_000, pricing(2.9, 30), 320],
    ['2.9 % + 30 ¢ of 51 ¢ (1.479 + 30)', 51, pricing('2.9', 30), 31],
    ['zero rate is the flat fee alone', 5000, pricing(0, 25), 25],
    ['flat only, zero flat', 5000, pricing(0), 0],
    ['cap applies when the fee is larger', 100_000, pricing(3, 30, 500), 500],
    ['cap does not apply when the fee is smaller', 1000, pricing(3, 30, 500), 60],
    ['cap equal to the fee', 1000, pricing(3, 30, 60), 60],
    ['a zero cap', 1000, pricing(3, 30, 0), 0],
    ['three decimals: 1.125 % of 1,000 ¢ = 11.25', 1000, pricing('1.125'), 11],
    ['four decimals: 2.4375 % of 2,000 ¢ = 48.75', 2000, pricing(2.4375), 49],
    ['four decimals, exact half: 0.0125 % of 4,000 ¢ = 0.5', 4000, pricing('0.0125'), 1],
    ['near the maximum amount: 2.75 % of 99,999,999 ¢', 99_999_999, pricing(2.75, 30), 2_750_030],
    ['a large rate on the maximum amount', 99_999_999, pricing(100), 99_999_999],
  ])('%s', (_name, amount, config, expected) => {
    expect(calculateFee(amount, config)).toBe(expected);
  });

  it('reads rates exactly, never as floats', () => {
    expect(parseRate(2.9)).toEqual({ numerator: 29n, scale: 10n });
    expect(parseRate('0.0125')).toEqual({ numerator: 125n, scale: 10_000n });
    expect(() => parseRate('-1')).toThrow(/not a non-negative decimal/);
    expect(() => parseRate('1e-7')).toThrow();
  });

  it('matches a BigInt reference computed in ten-thousandths of a cent, for any amount, rate, flat and cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 51, max: 99_999_999 }),
        fc.integer({ min: 0, max: 100_000 }), // rate in 1/10,000 of a percent: 0 – 10 %
        fc.integer({ min: 0, max: 1000 }),
        fc.option(fc.integer({ min: 0, max: 1_000_000 })),
        (amount, rateTenThousandths, flat, cap) => {
          const rate = `${Math.floor(rateTenThousandths / 10_000)}.${String(rateTenThousandths % 10_000).padStart(4, '0')}`;
          // Reference: fee in 1/1,000,000 of a cent, capped, then half-up.
          let micro = BigInt(amount) * BigInt(rateTenThousandths) + BigInt(flat) * 1_000_000n;
          if (cap !== null && micro > BigInt(cap) * 1_000_000n) micro = BigInt(cap) * 1_000_000n;
          const reference = Number((micro + 500_000n) / 1_000_000n);
          expect(calculateFee(amount, pricing(rate, flat, cap))).toBe(reference);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('configuration selection', () => {
  const t = (iso: string) => new Date(iso);
  const config = (feeType: string, start: string, end: string | null = null) => ({
    feeType,
    effectiveStart: t(start),
    effectiveEnd: end ? t(end) : null,
  });
  const at = t('2026-06-01T00:00:00Z');
  const all = [
    config('processing_ecomm', '2026-01-01T00:00:00Z'),
    config('processing_card_present', '2026-01-01T00:00:00Z'),
    config('processing_ach', '2026-01-01T00:00:00Z'),
    config('processing_ach_expedited', '2026-01-01T00:00:00Z'),
    config('visa_brand_ecomm', '2026-01-01T00:00:00Z'),
    config('mastercard_brand_card_present', '2026-01-01T00:00:00Z'),
    config('amex_brand_ecomm', '2026-01-01T00:00:00Z', '2026-05-01T00:00:00Z'),
    config('discover_brand_ecomm', '2026-07-01T00:00:00Z'),
  ];

  it('windows are start-inclusive and end-exclusive', () => {
    const window = config('platform', '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z');
    expect(isEffectiveAt(window, t('2026-06-01T00:00:00Z'))).toBe(true);
    expect(isEffectiveAt(window, t('2026-06-01T23:59:59.999Z'))).toBe(true);
    expect(isEffectiveAt(window, t('2026-06-02T00:00:00Z'))).toBe(false);
    expect(isEffectiveAt(window, t('2026-05-31T23:59:59.999Z'))).toBe(false);
  });

  it.each([
    [
      'a visa card online takes its brand configuration',
      { methodKind: 'card', cardBrand: 'visa' },
      'visa_brand_ecomm',
    ],
    [
      'a mastercard online has no brand configuration: base',
      { methodKind: 'card', cardBrand: 'mastercard' },
      'processing_ecomm',
    ],
    [
      'an amex brand configuration that ended falls back to base',
      { methodKind: 'card', cardBrand: 'american_express' },
      'processing_ecomm',
    ],
    [
      'a discover configuration not yet started falls back to base',
      { methodKind: 'card', cardBrand: 'discover' },
      'processing_ecomm',
    ],
    [
      'a mastercard in person takes its card-present brand configuration',
      { methodKind: 'card_present', cardBrand: 'mastercard' },
      'mastercard_brand_card_present',
    ],
    [
      'a visa in person has no card-present brand configuration: base',
      { methodKind: 'card_present', cardBrand: 'visa' },
      'processing_card_present',
    ],
    ['an unknown brand takes the base', { methodKind: 'card', cardBrand: 'jcb' }, 'processing_ecomm'],
    ['standard ACH', { methodKind: 'ach', cardBrand: null }, 'processing_ach'],
    ['expedited ACH', { methodKind: 'ach', cardBrand: null, expedited: true }, 'processing_ach_expedited'],
  ] as const)('%s', (_name, payment, expected) => {
    expect(expectedProcessingType({ expedited: false, ...payment }, all, at)).toBe(expected);
  });

  it('expects a platform fee only while a platform configuration is effective', () => {
    expect(effectivePlatformConfiguration(all, at)).toBeUndefined();
    const platform = config('platform', '2026-05-01T00:00:00Z', '2026-07-01T00:00:00Z');
    const withPlatform = [...all, platform];
    expect(effectivePlatformConfiguration(withPlatform, at)).toBe(platform);
    expect(effectivePlatformConfiguration(withPlatform, t('2026-07-01T00:00:00Z'))).toBeUndefined();
  });
});
