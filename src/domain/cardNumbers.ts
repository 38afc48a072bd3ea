// Runs of 13 or more digits, optionally grouped by single spaces or dashes; redactRun finds the number. A
// UUID (a job id, an idempotency key) is matched whole first and kept: the digits across its dashes can pass
// Luhn ("…-4d76-8678-21944742a4f3"), and it is never a card number.
const UUID = /^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;
const CANDIDATE = /\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b|(?<!\d)\d(?:[ -]?\d){12,}(?!\d)/gi;

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Replaces every card-number-like run (Luhn-valid, 13–19 digits) in a text by its last four digits. */
export function redactCardNumbersInText(text: string): string {
  if (!/\d{4}/.test(text)) return text;
  return text.replace(CANDIDATE, (run) => (UUID.test(run) ? run : redactRun(run)));
}

// The whole run first; failing that, any stretch of whole digit groups, so that a number written next to
// another group ("4242 4242 4242 4242 123") is still caught. An ungrouped run is only tried whole.
function redactRun(run: string): string {
  const groups = run.split(/[ -]/);
  for (let size = groups.length; size >= 1; size--) {
    for (let start = 0; start + size <= groups.length; start++) {
      const digits = groups.slice(start, start + size).join('');
      if (digits.length < 13 || digits.length > 19 || !passesLuhn(digits)) continue;
      const before = groups.slice(0, start).join(' ');
      const after = groups.slice(start + size).join(' ');
      return [before, `****${digits.slice(-4)}`, after].filter((part) => part !== '').join(' ');
    }
  }
  return run;
}

/** A deep copy of a JSON value with card numbers reduced to their last four, in strings, numbers and keys. */
export function redactCardNumbers<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactCardNumbersInText(value);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1e12) return value;
    const text = String(value);
    const redacted = redactCardNumbersInText(text);
    return redacted === text ? value : redacted;
  }
  if (Array.isArray(value)) return value.map(redactValue);
  // A timestamp column: copied key by key it would become `{}`.
  if (value instanceof Date) return value;
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) copy[redactCardNumbersInText(key)] = redactValue(child);
    return copy;
  }
  return value;
}
