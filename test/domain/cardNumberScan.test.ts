import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_REDACTED_DEPTH,
  redactCardNumbers,
  redactCardNumbersInText,
  TOO_DEEP,
} from '../../src/domain/cardNumbers.ts';

// An independent check of the redactor's output, brute force and written for small inputs: every stretch of
// whole consecutive digit groups (joined by a space, dash, dot, no-break space or two spaces) is tried.
const UUIDS = /\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/gi;
const RUNS = /\d+(?:(?: {2}|[ .\u00a0-])\d+)*/g;
const SEPARATOR = / {2}|[ .\u00a0-]/;

function luhnValid(digits: string): boolean {
  const reversed = [...digits].reverse().map(Number);
  const sum = reversed.reduce((total, digit, index) => {
    if (index % 2 === 0) return total + digit;
    const doubled = digit * 2;
    return total + (doubled > 9 ? doubled - 9 : doubled);
  }, 0);
  return sum % 10 === 0;
}

function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const run of text.replace(UUIDS, 'U').match(RUNS) ?? []) {
    const groups = run.split(SEPARATOR);
    for (let first = 0; first < groups.length; first++) {
      for (let last = first; last < groups.length; last++) {
        const digits = groups.slice(first, last + 1).join('');
        if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) found.push(digits);
      }
    }
  }
  return found;
}

const separator = fc.constantFrom(' ', '-', '.', '  ', '\u00a0');
const digitGroup = fc.stringMatching(/^\d{1,6}$/);
// Runs of digit groups between words: dense in card-number-like windows, and in near misses.
const groupedText = fc
  .array(fc.tuple(fc.array(fc.tuple(digitGroup, separator), { maxLength: 8 }), digitGroup, fc.string()), {
    maxLength: 4,
  })
  .map((parts) =>
    parts.map(([groups, last, word]) => groups.flat().join('') + last + word.replace(/\d/g, '')).join(' '),
  );
const scatteredText = fc.string({
  unit: fc.constantFrom('0', '1', '2', '4', '5', '7', '9', ' ', '-', '.', '\u00a0', 'a', '*'),
  maxLength: 80,
});

describe('card number redaction, property checks', () => {
  it.each([
    ['4242.4242.4242.4242', '****4242'],
    ['4242  4242  4242  4242', '****4242'],
    ['4242\u00a04242\u00a04242\u00a04242', '****4242'],
    ['1 2 3 4 5 6 7 8 9 0 1 2 8', '****0128'],
    ['two 4242424242424242 5555555555554444 ok', 'two ****4242 ****4444 ok'],
    ['4242-4242-4242-4242 then 12', '****4242 then 12'],
  ])('reduces %j', (input, output) => {
    expect(cardNumbersIn(input).length).toBeGreaterThan(0);
    expect(redactCardNumbersInText(input)).toBe(output);
  });

  it('reduces a negative JSON number too', () => {
    expect(redactCardNumbers({ n: -4242424242424242 })).toEqual({ n: '-****4242' });
  });

  it('never leaves a Luhn-valid 13–19 digit stretch of whole groups, by an independent scan', () => {
    fc.assert(
      fc.property(fc.oneof(groupedText, scatteredText), (text) => {
        expect(cardNumbersIn(redactCardNumbersInText(text))).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });

  it('leaves text without a card-number-like stretch exactly as it was', () => {
    fc.assert(
      fc.property(fc.oneof(groupedText, scatteredText, fc.string({ unit: 'grapheme' })), (text) => {
        fc.pre(cardNumbersIn(text).length === 0);
        expect(redactCardNumbersInText(text)).toBe(text);
      }),
      { numRuns: 5000 },
    );
  });

  it('takes time linear in the number of digit groups: doubling the input at most about doubles the time', () => {
    // One run of 400 digit groups, joined by the separators every version of the redactor knew.
    const groups = fc.sample(fc.tuple(digitGroup, fc.constantFrom(' ', '-')), { numRuns: 400, seed: 42 });
    const base = groups.map(([group, between]) => group + between).join('');
    // Compiled by the JIT before anything is measured.
    fastestRedactions([base], 200);
    // 450 ms of runs, the three sizes in turn, so a pause of the machine or the collector (beside three other
    // test files on two cores) falls on every size alike, and the fastest run of each is compared.
    const [once, twice, four] = fastestRedactions(
      [1, 2, 4].map((times) => base.repeat(times)),
      450,
    ) as [number, number, number];
    // A quadratic scan is 4x slower per doubling, a cubic one 8x; noise stays well under 3x.
    expect(twice / once).toBeLessThan(3);
    expect(four / twice).toBeLessThan(3);
  });

  it('stops at a depth that no reader recurses past, whatever the depth of the value', () => {
    let deep: unknown = { card: '4242424242424242' };
    for (let level = 0; level < 100_000; level++) deep = [deep];
    let shown = redactCardNumbers(deep);
    for (let level = 0; level < MAX_REDACTED_DEPTH; level++) shown = (shown as unknown[])[0];
    expect(shown).toBe(TOO_DEEP);
    expect(() => JSON.stringify(redactCardNumbers(deep))).not.toThrow();
  });
});

// The fastest of repeated redactions of `text`, in milliseconds: at least three, and more until `forMs` have
// passed. The fastest is the one least disturbed by the garbage collector and other processes.
function fastestRedactions(texts: string[], forMs: number): number[] {
  const fastest = texts.map(() => Number.POSITIVE_INFINITY);
  const started = performance.now();
  for (let rounds = 0; rounds < 3 || performance.now() - started < forMs; rounds++) {
    texts.forEach((text, index) => {
      const before = performance.now();
      redactCardNumbersInText(text);
      fastest[index] = Math.min(fastest[index] ?? Number.POSITIVE_INFINITY, performance.now() - before);
    });
  }
  return fastest;
}
