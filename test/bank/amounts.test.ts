import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/bank/amounts.ts';

describe('amounts as a bank writes them', () => {
  it.each([
    ['12.30', 1230],
    ['-12.3', -1230],
    ['1,234.56', 123456],
    ['(12.30)', -1230],
    ['12.30-', -1230],
    ['+5', 500],
    ['.5', 50],
    ['0.00', 0],
    ['12.300', 1230],
  ])('reads %s as %i cents', (text, cents) => {
    expect(parseAmount(text, 2)).toBe(cents);
  });

  it.each(['', 'abc', '12.345', '1,23.00', '--5', '(-5)', '1.2.3', '12,30'])('refuses %j', (text) => {
    expect(parseAmount(text, 2)).toBeNull();
  });

  it('reads an amount padded with any number of spaces; inside it, 64 characters at most', () => {
    const spaces = ' '.repeat(100_000);
    expect(parseAmount(`${spaces}12.30${spaces}`, 2)).toBe(1230);
    expect(parseAmount(`12.30${' '.repeat(20)}-`, 2)).toBe(-1230);
    expect(parseAmount(`12.30${spaces}-`, 2)).toBeNull();
    expect(parseAmount(`12.30${spaces}x`, 2)).toBeNull();
    expect(parseAmount(`1${'0'.repeat(100)}`, 2)).toBeNull();
  });

  it('reads back any amount written plain, with thousands commas, signed or in parentheses', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        const magnitude = Math.abs(cents);
        const whole = Math.trunc(magnitude / 100);
        const fraction = String(magnitude % 100).padStart(2, '0');
        const grouped = whole.toLocaleString('en-US');
        const negative = cents < 0;
        expect(parseAmount(`${negative ? '-' : ''}${whole}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(`${negative ? '-' : ''}${grouped}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(negative ? `(${grouped}.${fraction})` : `${grouped}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(`${whole}.${fraction}`, 2)).toBe(magnitude);
      }),
    );
  });

  it('never turns text into a different amount: whatever it accepts writes back the same', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[-+(]?[\d,.]{0,12}[)-]?$/), (text) => {
        const cents = parseAmount(text, 2);
        if (cents === null) return;
        const digits = text.replace(/[^\d.]/g, '');
        const [whole = '', fraction = ''] = digits.split('.');
        expect(Math.abs(cents)).toBe(
          Number(whole || '0') * 100 + Number(fraction.padEnd(2, '0').slice(0, 2)),
        );
      }),
    );
  });
});
