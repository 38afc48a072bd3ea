/** Cents as an exact decimal string: 123456 → "1234.56", -5 → "-0.05". No floating point involved. */
export function decimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents for a reader: "$1,234.56", "CA$12.00"; the currency code as is when it is not a known one. */
export function formatMoney(cents: number, currency: string | null): string {
  if (!currency) return decimal(cents);
  const format = currencyFormat(currency.toUpperCase());
  return format ? format.format(cents / 100) : `${decimal(cents)} ${currency.toUpperCase()}`;
}

// Building a formatter costs far more than formatting with one; a report formats thousands of amounts.
const currencyFormats = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(code: string): Intl.NumberFormat | null {
  if (!currencyFormats.has(code)) {
    let format: Intl.NumberFormat | null = null;
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
    } catch {
      // Not a currency this runtime knows: written as a code.
    }
    currencyFormats.set(code, format);
  }
  return currencyFormats.get(code) ?? null;
}
