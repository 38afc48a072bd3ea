import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passesLuhn, redactCardNumbers, redactCardNumbersInText } from '../../src/domain/cardNumbers.ts';

describe('card number redaction', () => {
  it.each([
    ['4242424242424242', '****4242'],
    ['card 4242 4242 4242 4242 ok', 'card ****4242 ok'],
    ['4000-0566-5566-5556', '****5556'],
    ['378282246310005', '****0005'],
    ['6011111111111117', '****1117'],
    ['4111111111111111110', '****1110'],
    ['4242 4242 4242 4242 123', '****4242 123'],
    ['4242 4242 4242 4242 1234 5678', '****4242 1234 5678'],
  ])('reduces %j to its last four', (input, output) => {
    expect(redactCardNumbersInText(input)).toBe(output);
  });

  it.each([
    ['4242424242424241', 'fails Luhn'],
    ['424242424242', '12 digits'],
    ['42424242424242424242', '20 digits'],
    ['1795343550014', 'a 13-digit millisecond timestamp that fails Luhn'],
    ['py_123 amount 15152', 'ordinary ids and amounts'],
    ['jobId 0832952a-50d5-4d76-8678-21944742a4f3', 'a UUID whose digits across dashes pass Luhn'],
  ])('leaves %j alone (%s)', (input) => {
    expect(redactCardNumbersInText(input)).toBe(input);
  });

  it('walks nested objects, arrays, numeric values and keys', () => {
    expect(
      redactCardNumbers({
        card: { number: '4242424242424242', numeric: 4242424242424242, last4: '4242' },
        list: ['x 5555555555554444 y'],
        '4242424242424242': true,
        amount: 1234,
      }),
    ).toEqual({
      card: { number: '****4242', numeric: '****4242', last4: '4242' },
      list: ['x ****4444 y'],
      '****4242': true,
      amount: 1234,
    });
  });

  it('never leaves a Luhn-valid 13–19 digit run in its output', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('0', '1', '4', '9', ' ', '-', 'a') }), (text) => {
        const out = redactCardNumbersInText(text);
        // No stretch of whole digit groups in the output may be a Luhn-valid 13–19 digit number.
        for (const run of out.match(/\d+(?:[ -]\d+)*/g) ?? []) {
          const groups = run.split(/[ -]/);
          for (let start = 0; start < groups.length; start++) {
            for (let end = start + 1; end <= groups.length; end++) {
              const digits = groups.slice(start, end).join('');
              if (digits.length >= 13 && digits.length <= 19) expect(passesLuhn(digits)).toBe(false);
            }
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
