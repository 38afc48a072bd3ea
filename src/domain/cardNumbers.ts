// Card numbers are found by one left-to-right scan, in time linear in the text: a run is a sequence of digit
// groups joined by one separator each (a space, a dash, a dot, a no-break space or two spaces), and every
// stretch of whole consecutive groups holding 13–19 digits that passes Luhn is a card number. A window ending at
// a group reaches back at most 19 digits, so each group is looked at a bounded number of times whatever the
// length of the run. A UUID (a job id, an idempotency key) is skipped whole: the digits across its dashes can
// pass Luhn ("…-4d76-8678-21944742a4f3"), and it is never a card number.
const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
const MASK = '****';
const UUID = /^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;
const UUID_LENGTH = 36;

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    sum += luhnValue(digits.charCodeAt(digits.length - 1 - index) - 48, index);
  }
  return sum % 10 === 0;
}

// The digit's share of the Luhn sum at `position` counted from the right, 0 for the check digit.
function luhnValue(digit: number, position: number): number {
  if (position % 2 === 0) return digit;
  return digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
}

const isDigit = (code: number) => code >= 48 && code <= 57;
const isWordChar = (code: number) =>
  isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const isHex = (code: number) => isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);

// A UUID standing as a word of its own at `index` (what `\b…\b` would match).
function isUuidAt(text: string, index: number): boolean {
  if (index > 0 && isWordChar(text.charCodeAt(index - 1))) return false;
  if (text.charCodeAt(index + 8) !== 45 || !isHex(text.charCodeAt(index))) return false;
  const end = index + UUID_LENGTH;
  if (end > text.length || (end < text.length && isWordChar(text.charCodeAt(end)))) return false;
  return UUID.test(text.slice(index, end));
}

// The length of the group separator at `index` when a digit follows it, else 0.
function separatorAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code === 32 && text.charCodeAt(index + 1) === 32) return isDigit(text.charCodeAt(index + 2)) ? 2 : 0;
  const separates = code === 32 || code === 45 || code === 46 || code === 0xa0;
  return separates && isDigit(text.charCodeAt(index + 1)) ? 1 : 0;
}

/** The digit groups of a run: group `g` is text[starts[g], ends[g]), all digits. */
type Run = { starts: number[]; ends: number[] };
/** Groups first..last (inclusive) of a run, shown as `****` and the last four digits. */
type Masked = { first: number; last: number };

/** Replaces every card-number-like run (Luhn-valid, 13–19 digits) in a text by `****` and its last four digits. */
export function redactCardNumbersInText(text: string): string {
  const parts: string[] = [];
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (isHex(code) && isUuidAt(text, index)) {
      index += UUID_LENGTH;
    } else if (isDigit(code)) {
      const run = runFrom(text, index);
      for (const { first, last } of maskedStretches(text, run)) {
        parts.push(text.slice(copiedUpTo, run.starts[first]), MASK, lastFour(text, run, last));
        copiedUpTo = run.ends[last] as number;
      }
      index = run.ends[run.ends.length - 1] as number;
    } else {
      index += 1;
    }
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copiedUpTo));
  return parts.join('');
}

// The run of digit groups starting at `start`; it ends before anything that is not a separator followed by a
// digit, and before a UUID, which is never part of a number.
function runFrom(text: string, start: number): Run {
  const run: Run = { starts: [], ends: [] };
  let index = start;
  for (;;) {
    run.starts.push(index);
    while (isDigit(text.charCodeAt(index))) index += 1;
    run.ends.push(index);
    const separator = separatorAt(text, index);
    if (separator === 0 || isUuidAt(text, index + separator)) return run;
    index += separator;
  }
}

/**
 * The stretches of a run to mask, in order: every valid window (13–19 digits of whole groups, Luhn) is
 * covered, and overlapping windows are masked as one. A masked stretch shows its last four digits, which with
 * the groups after it could form a valid window of the output; the stretch then reaches over those groups too.
 */
function maskedStretches(text: string, run: Run): Masked[] {
  const masked: Masked[] = [];
  for (let last = 0; last < run.starts.length; last++) {
    const first = firstOfValidWindowEndingAt(text, run, last);
    if (first === null) continue;
    let stretch = { first, last };
    // Overlapping stretches merge; each is merged away at most once, so the whole loop stays linear.
    while (masked.length > 0 && (masked[masked.length - 1] as Masked).last >= stretch.first) {
      const previous = masked.pop() as Masked;
      stretch = { first: Math.min(previous.first, stretch.first), last };
    }
    masked.push(stretch);
  }
  for (let position = 0; position < masked.length; position++) {
    const stretch = masked[position] as Masked;
    const limit = (masked[position + 1]?.first ?? run.starts.length) - 1;
    stretch.last = extendOverShownDigits(text, run, stretch.last, limit);
  }
  return masked;
}

// The first group of the widest valid window ending at group `last`, or null: the window grows leftwards,
// a whole group at a time, until it would pass 19 digits, keeping the Luhn sum as it goes.
function firstOfValidWindowEndingAt(text: string, run: Run, last: number): number | null {
  let found: number | null = null;
  let digits = 0;
  let sum = 0;
  for (let first = last; first >= 0; first--) {
    const start = run.starts[first] as number;
    const end = run.ends[first] as number;
    if (digits + end - start > MAX_DIGITS) break;
    for (let index = end - 1; index >= start; index--) {
      sum += luhnValue(text.charCodeAt(index) - 48, digits);
      digits += 1;
    }
    if (digits >= MIN_DIGITS && sum % 10 === 0) found = first;
  }
  return found;
}

// Moves a stretch's end over the groups up to `limit` for as long as the four digits it shows and the groups
// after them form a valid window; returns the new last group.
function extendOverShownDigits(text: string, run: Run, last: number, limit: number): number {
  let end = last;
  for (;;) {
    const shown = lastFour(text, run, end);
    let next = end;
    let digits = shown.length;
    for (let candidate = end + 1; candidate <= limit; candidate++) {
      digits += (run.ends[candidate] as number) - (run.starts[candidate] as number);
      if (digits > MAX_DIGITS) break;
      if (digits >= MIN_DIGITS && shownWindowPassesLuhn(text, run, shown, end + 1, candidate))
        next = candidate;
    }
    if (next === end) return end;
    end = next;
  }
}

// Luhn over the shown four digits followed by groups first..last, summed from the right.
function shownWindowPassesLuhn(text: string, run: Run, shown: string, first: number, last: number): boolean {
  let position = 0;
  let sum = 0;
  for (let group = last; group >= first; group--) {
    for (let index = (run.ends[group] as number) - 1; index >= (run.starts[group] as number); index--) {
      sum += luhnValue(text.charCodeAt(index) - 48, position);
      position += 1;
    }
  }
  for (let index = shown.length - 1; index >= 0; index--) {
    sum += luhnValue(shown.charCodeAt(index) - 48, position);
    position += 1;
  }
  return sum % 10 === 0;
}

// The last four digits of the run up to and including group `last` (fewer only if the run has fewer).
function lastFour(text: string, run: Run, last: number): string {
  let digits = '';
  for (let group = last; group >= 0 && digits.length < 4; group--) {
    const end = run.ends[group] as number;
    digits = text.slice(Math.max(run.starts[group] as number, end - (4 - digits.length)), end) + digits;
  }
  return digits;
}

// Deeper than any body the webhook accepts (64 levels, src/ingest/envelope.ts) with room for the wrapping an
// API answer adds; what lies deeper is shown as this text, so no reader of a stored body recurses without end.
export const MAX_REDACTED_DEPTH = 100;
export const TOO_DEEP = `[nested deeper than ${MAX_REDACTED_DEPTH} levels: not shown]`;

/**
 * A deep copy of a JSON value with card numbers reduced to their last four, in strings, numbers and keys.
 * Objects and arrays deeper than `MAX_REDACTED_DEPTH` are replaced by the text `TOO_DEEP`.
 */
export function redactCardNumbers<T>(value: T): T {
  return redactValue(value, 0) as T;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactCardNumbersInText(value);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || Math.abs(value) < 1e12) return value;
    const text = String(value);
    const redacted = redactCardNumbersInText(text);
    return redacted === text ? value : redacted;
  }
  // A timestamp column: copied key by key it would become `{}`.
  if (value instanceof Date || typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTED_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((child) => redactValue(child, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    copy[redactCardNumbersInText(key)] = redactValue(child, depth + 1);
  return copy;
}
