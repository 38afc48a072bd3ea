/**
 * ISO 4217 minor units of the currencies a bank statement may name. A code missing here is refused: reading
 * its amounts with a guessed exponent could be off by a factor of 100.
 */
const EXPONENTS: Record<string, number> = {
  AED: 2,
  AUD: 2,
  BGN: 2,
  BHD: 3,
  BRL: 2,
  CAD: 2,
  CHF: 2,
  CLP: 0,
  CNY: 2,
  COP: 2,
  CZK: 2,
  DKK: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  MXN: 2,
  MYR: 2,
  NOK: 2,
  NZD: 2,
  OMR: 3,
  PHP: 2,
  PLN: 2,
  RON: 2,
  SAR: 2,
  SEK: 2,
  SGD: 2,
  THB: 2,
  TND: 3,
  TRY: 2,
  TWD: 2,
  USD: 2,
  VND: 0,
  ZAR: 2,
};

/** The currency's minor-unit exponent (USD 2, JPY 0), or null for a code Tally does not know. */
export function currencyExponent(code: string): number | null {
  return Object.hasOwn(EXPONENTS, code) ? (EXPONENTS[code] ?? null) : null;
}

// Digits with optional thousands commas (1,234,567) or none, then an optional fraction.
const NUMBER = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$|^\.(\d+)$/;

/**
 * An amount as a bank writes it, in integer minor units of a currency with `exponent` decimals: `12.30`,
 * `-12.3`, `+5`, `1,234.56`, `(12.30)` (accountants' negative) and `12.30-` (a trailing minus, as some US
 * banks print debits). Null when it is not one, or when it has more decimals than the currency has (unless
 * the extra digits are zeros): a cent is never rounded away.
 */
export function parseAmount(text: string, exponent: number): number | null {
  let body = text.trim();
  let negative = false;
  const parenthesised = /^\((.*)\)$/.exec(body);
  if (parenthesised) {
    body = (parenthesised[1] ?? '').trim();
    negative = true;
  }
  const signed = /^([+-])\s*/.exec(body) ?? /\s*([+-])$/.exec(body);
  if (signed) {
    body = signed.index === 0 ? body.slice(signed[0].length) : body.slice(0, signed.index);
    if (signed[1] === '-') {
      if (negative) return null;
      negative = true;
    }
  }
  const match = NUMBER.exec(body);
  if (!match) return null;
  const whole = (match[1] ?? '0').replaceAll(',', '');
  const fraction = match[2] ?? match[3] ?? '';
  const kept = fraction.slice(0, exponent);
  if (/[^0]/.test(fraction.slice(exponent))) return null;
  const units = Number(`${whole}${kept.padEnd(exponent, '0')}`);
  if (!Number.isSafeInteger(units)) return null;
  return negative && units !== 0 ? -units : units;
}
