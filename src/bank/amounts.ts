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

// Digits with optional thousands commas (1,234,567) or none, then an optional fraction. Anchored at both ends
// and only ever run on at most MAX_AMOUNT_CHARS characters.
const NUMBER = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$|^\.(\d+)$/;
// Longer than any amount that fits a safe integer, with room for commas and zero decimals.
const MAX_AMOUNT_CHARS = 64;

/**
 * An amount as a bank writes it, in integer minor units of a currency with `exponent` decimals: `12.30`,
 * `-12.3`, `+5`, `1,234.56`, `(12.30)` (accountants' negative) and `12.30-` (a trailing minus, as some US
 * banks print debits). Null when it is not one, or when it has more decimals than the currency has (unless
 * the extra digits are zeros): a cent is never rounded away. Signs and spaces are taken off by position, not
 * by a regular expression, so the time is linear in the text however much space pads it.
 */
export function parseAmount(text: string, exponent: number): number | null {
  let body = text.trim();
  if (body.length > MAX_AMOUNT_CHARS) return null;
  let negative = false;
  if (body.startsWith('(') && body.endsWith(')')) {
    body = body.slice(1, -1).trim();
    negative = true;
  }
  const leading = body.startsWith('+') || body.startsWith('-');
  const sign = leading ? body[0] : body.endsWith('+') || body.endsWith('-') ? body.at(-1) : undefined;
  if (sign !== undefined) {
    body = leading ? body.slice(1).trimStart() : body.slice(0, -1).trimEnd();
    if (sign === '-') {
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
