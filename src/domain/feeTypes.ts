export const BASE_FEE_TYPES = [
  'processing_ecomm',
  'processing_card_present',
  'processing_ach',
  'processing_ach_expedited',
] as const;

const BRANDS = ['visa', 'mastercard', 'amex', 'discover'] as const;

export const BRAND_FEE_TYPES = BRANDS.flatMap((brand) => [
  `${brand}_brand_ecomm`,
  `${brand}_brand_card_present`,
]);

export const FEE_TYPES: readonly string[] = [...BASE_FEE_TYPES, 'platform', ...BRAND_FEE_TYPES];

/** The provider's card brand strings, as named in brand fee types. Other brands have no brand pricing. */
const BRAND_KEYS: Record<string, (typeof BRANDS)[number]> = {
  visa: 'visa',
  mastercard: 'mastercard',
  american_express: 'amex',
  amex: 'amex',
  discover: 'discover',
};

export function brandKeyOf(brand: string | null | undefined): string | null {
  return brand ? (BRAND_KEYS[brand.toLowerCase()] ?? null) : null;
}

export function isBaseFeeType(feeType: string): boolean {
  return (BASE_FEE_TYPES as readonly string[]).includes(feeType);
}

/** The base type a brand type needs to exist (seed: fee_type_must_be_inside_hierarchy). */
export function baseOfBrandType(feeType: string): string | null {
  if (!BRAND_FEE_TYPES.includes(feeType)) return null;
  return feeType.endsWith('_ecomm') ? 'processing_ecomm' : 'processing_card_present';
}
