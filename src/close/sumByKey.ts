import type { MovementKind } from '../domain/movementKinds.ts';
import type { KindTotals } from './walk.ts';

/**
 * Rows folded into one entry per key: `start` makes a key's entry from its first row, `add` adds every row of the
 * key to it. `sums` is the map to fold into (a new one unless given), so two kinds of row can share one.
 */
export function sumByKey<Row, Entry>(
  rows: Iterable<Row>,
  keyOf: (row: Row) => string,
  start: (row: Row) => Entry,
  add: (entry: Entry, row: Row) => void,
  sums: Map<string, Entry> = new Map(),
): Map<string, Entry> {
  for (const row of rows) {
    const key = keyOf(row);
    let entry = sums.get(key);
    if (entry === undefined) {
      entry = start(row);
      sums.set(key, entry);
    }
    add(entry, row);
  }
  return sums;
}

/** Adds a movement's amount to its kind's total. */
export function addMovement(
  entry: { totals: KindTotals },
  row: { kind: MovementKind; amount: number },
): void {
  entry.totals[row.kind] += row.amount;
}

/**
 * The items in the order of their keys, each made once and compared by code point: the same order on every
 * machine, whatever its locale. A key of several columns joins them with U+0000, which sorts before any character
 * they hold, so the columns order one after another.
 */
export function sortedByKey<Item>(items: Iterable<Item>, keyOf: (item: Item) => string): Item[] {
  return [...items]
    .map((item): [string, Item] => [keyOf(item), item])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, item]) => item);
}
