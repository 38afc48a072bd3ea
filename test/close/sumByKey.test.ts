import { describe, expect, it } from 'vitest';
import { addMovement, sortedByKey, sumByKey } from '../../src/close/sumByKey.ts';
import { emptyTotals } from '../../src/close/walk.ts';

describe('summing rows by key', () => {
  it('starts each key from its first row and adds every row of it, keys in the order first seen', () => {
    const rows = [
      { currency: 'usd', kind: 'sale' as const, amount: 500 },
      { currency: 'eur', kind: 'refund' as const, amount: 70 },
      { currency: 'usd', kind: 'sale' as const, amount: 250 },
      { currency: 'usd', kind: 'refund' as const, amount: 30 },
    ];
    const sums = sumByKey(
      rows,
      (row) => row.currency,
      (row) => ({ currency: row.currency, totals: emptyTotals() }),
      addMovement,
    );
    expect([...sums.keys()]).toEqual(['usd', 'eur']);
    expect(sums.get('usd')?.totals).toMatchObject({ sale: 750, refund: 30, payout: 0 });
    expect(sums.get('eur')?.totals).toMatchObject({ sale: 0, refund: 70 });
  });

  it('folds a second kind of row into the same map', () => {
    const count = (entry: { n: number }) => {
      entry.n += 1;
    };
    const first = sumByKey(
      ['a', 'b'],
      (key) => key,
      () => ({ n: 0 }),
      count,
    );
    const both = sumByKey(
      ['b', 'c'],
      (key) => key,
      () => ({ n: 0 }),
      count,
      first,
    );
    expect(both).toBe(first);
    expect(Object.fromEntries([...both].map(([key, { n }]) => [key, n]))).toEqual({ a: 1, b: 2, c: 1 });
  });
});

describe('sorting items by key', () => {
  it('compares keys by code point, and columns joined by U+0000 one after another', () => {
    const rows = [
      ['po_a', '2026-10-02'],
      ['po_B', '2026-10-02'],
      ['po_a', '2026-10-01'],
      ['po_a2', '2026-10-01'],
    ];
    expect(sortedByKey(rows, (row) => row.join('\u0000'))).toEqual([
      ['po_B', '2026-10-02'],
      ['po_a', '2026-10-01'],
      ['po_a', '2026-10-02'],
      ['po_a2', '2026-10-01'],
    ]);
  });
});
