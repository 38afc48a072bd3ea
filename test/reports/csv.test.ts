import { describe, expect, it } from 'vitest';
import { decimal } from '../../src/domain/money.ts';
import { csvField } from '../../src/reports/renderCsv.ts';

describe('CSV fields', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    [1234, '1234'],
    [-5, '-5'],
    [null, ''],
    [true, 'true'],
    [{ a: 1 }, '"{""a"":1}"'],
  ])('quotes %j per RFC 4180', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each([
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+cmd', "'+cmd"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['-1+2', "'-1+2"],
  ])('defuses text a spreadsheet would run as a formula: %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('leaves numbers written as text alone', () => {
    expect(csvField('-12.34')).toBe('-12.34');
    expect(csvField('+5')).toBe('+5');
  });

  it('writes cents as exact decimals', () => {
    expect([decimal(0), decimal(5), decimal(-5), decimal(1005), decimal(123_456_789_012)]).toEqual([
      '0.00',
      '0.05',
      '-0.05',
      '10.05',
      '1234567890.12',
    ]);
  });
});
