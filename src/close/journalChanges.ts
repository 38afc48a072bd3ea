import type { LedgerEntry, LedgerLine } from './journalFormats.ts';

/** Each account's debit less credit over an entry's lines. */
function netByAccount(lines: LedgerLine[], sign: 1 | -1, into = new Map<string, number>()) {
  for (const line of lines)
    into.set(line.account, (into.get(line.account) ?? 0) + sign * (line.debit - line.credit));
  return into;
}

/**
 * The changes journal of `version` against `since` (docs/month-end.md): per entry id,
 * the later version's lines less the earlier one's, per account as the format names it, so an entry whose
 * amounts changed still balances and a renamed account is moved from the old name to the new. A new entry is
 * added whole, a vanished one reversed whole, an unchanged one left out. Each keeps its own date; its id is
 * suffixed `-v<version>`, so importing the changes never collides with the entries they change.
 */
export function changesOf(
  earlier: LedgerEntry[],
  later: LedgerEntry[],
  since: number,
  version: number,
): LedgerEntry[] {
  const before = new Map(earlier.map((entry) => [entry.id, entry]));
  const after = new Map(later.map((entry) => [entry.id, entry]));
  const changes: LedgerEntry[] = [];
  for (const id of new Set([...after.keys(), ...before.keys()])) {
    const was = before.get(id);
    const is = after.get(id);
    const net = netByAccount(was?.lines ?? [], -1, netByAccount(is?.lines ?? [], 1));
    const lines = [...net.entries()]
      .filter(([, amount]) => amount !== 0)
      .map(([account, amount]) => ({
        account,
        debit: Math.max(amount, 0),
        credit: Math.max(-amount, 0),
      }))
      .toSorted((a, b) => b.debit - a.debit);
    if (lines.length === 0) continue;
    const entry = (is ?? was) as LedgerEntry;
    const what = !was
      ? `new in version ${version}`
      : !is
        ? `reversed: not in version ${version}`
        : `version ${version} less version ${since}`;
    changes.push({ ...entry, id: `${id}-v${version}`, memo: `${entry.memo}, ${what}`, lines });
  }
  // Stable: within a day, the later version's order, then what vanished in the earlier one's.
  return changes.toSorted((a, b) => a.currency.localeCompare(b.currency) || a.day.localeCompare(b.day));
}
