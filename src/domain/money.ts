/** Cents as an exact decimal string: 123456 → "1234.56", -5 → "-0.05". No floating point involved. */
export function decimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents for a reader: "$1,234.56", "CA$12.00"; the currency code as is when it is not a known one. */
export function formatMoney(cents: number, currency: string | null): string {
  if (!currency) return decimal(cents);
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
      cents / 100,
    );
  } catch {
    return `${decimal(cents)} ${currency.toUpperCase()}`;
  }
}
