import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildJournalEntries } from '../../src/close/journal.ts';
import { changesOf } from '../../src/close/journalChanges.ts';
import { type LedgerLine, ledgerEntriesOf } from '../../src/close/journalFormats.ts';
import { activityOf, emptyTotals, heldOf, walkHolds, walkOf } from '../../src/close/walk.ts';
import { loadConfig } from '../../src/config.ts';
import { accountFor } from '../../src/domain/ledgerAccounts.ts';
import { MOVEMENT_KINDS, MOVEMENTS } from '../../src/domain/movementKinds.ts';

const keyOf = (m: { currency: string; day: string; kind: string; reference: string | null }) =>
  `${m.currency} ${m.day} ${m.kind} ${m.reference}`;
const movement = fc.record({
  currency: fc.constantFrom('usd', 'cad'),
  day: fc.constantFrom('2026-10-01', '2026-10-15', '2026-10-31'),
  kind: fc.constantFrom(...MOVEMENT_KINDS),
  reference: fc.constantFrom(null, 'po_1', 'po_2'),
  amount: fc.integer({ min: -1_000_000_00, max: 1_000_000_00 }),
});

describe('the walk and the journal for random activity', () => {
  it('the walk holds, every entry balances, and clearing moves by held_end − held_start', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(movement, { selector: keyOf, maxLength: 60 }),
        fc.integer({ min: -10_000_00, max: 10_000_00 }),
        (movements, heldBefore) => {
          const totals = emptyTotals();
          for (const item of movements.filter((m) => m.currency === 'usd')) totals[item.kind] += item.amount;
          const walk = walkOf(heldBefore, 0, heldBefore, totals);
          expect(walkHolds(walk)).toBe(true);
          expect(walk.net).toBe(activityOf(totals).net);
          const entries = buildJournalEntries(
            '2026-10',
            movements.filter((m) => m.currency === 'usd'),
          );
          let clearing = 0;
          for (const entry of entries) {
            const [debit, credit] = entry.lines;
            expect(debit.debit - credit.credit).toBe(0);
            expect(debit.debit).toBeGreaterThan(0);
            for (const line of entry.lines)
              if (line.kind === 'clearing') clearing += line.debit - line.credit;
          }
          expect(clearing).toBe(heldOf(totals));
          expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
        },
      ),
    );
  });

  it('the changes journal balances entry by entry, and added to the first version gives the second', () => {
    const edit = fc.tuple(
      fc.constantFrom('keep', 'drop', 'change'),
      fc.integer({ min: -5_000_00, max: 5_000_00 }),
    );
    const movements = fc.uniqueArray(movement, { selector: keyOf, maxLength: 40 });
    fc.assert(
      fc.property(
        movements,
        fc.array(edit, { maxLength: 40 }),
        movements,
        fc.boolean(),
        (first, edits, extra, renamed) => {
          const second = first.flatMap((item, index) => {
            const [action, delta] = edits[index] ?? ['keep', 0];
            if (action === 'drop') return [];
            return [action === 'change' ? { ...item, amount: item.amount + delta } : item];
          });
          const known = new Set(first.map(keyOf));
          second.push(...extra.filter((item) => !known.has(keyOf(item))));
          const settings = { accounts: {}, xeroTaxRate: 'Tax Exempt' };
          // A renamed account between the versions moves its amounts from the old name to the new one.
          const later = renamed
            ? { ...settings, accounts: { sales: '4000', 'clearing.cad': '1151' } }
            : settings;
          const before = ledgerEntriesOf('netsuite', buildJournalEntries('2026-10', first), settings);
          const after = ledgerEntriesOf('netsuite', buildJournalEntries('2026-10', second), later);
          const changes = changesOf(before, after, 1, 2);
          const sums = new Map<string, number>();
          const add = (id: string, lines: LedgerLine[], sign: number) => {
            for (const line of lines) {
              const key = `${id} ${line.account}`;
              sums.set(key, (sums.get(key) ?? 0) + sign * (line.debit - line.credit));
            }
          };
          for (const entry of changes) {
            expect(entry.id).toMatch(/-v2$/);
            expect(entry.lines.reduce((sum, line) => sum + line.debit - line.credit, 0)).toBe(0);
            add(entry.id.slice(0, -3), entry.lines, 1);
          }
          for (const entry of before) add(entry.id, entry.lines, 1);
          for (const entry of after) add(entry.id, entry.lines, -1);
          expect([...sums].filter(([, amount]) => amount !== 0)).toEqual([]);
          // Unchanged entries are left out.
          const unchanged = after.filter((entry) =>
            before.some(
              (was) => was.id === entry.id && JSON.stringify(was.lines) === JSON.stringify(entry.lines),
            ),
          );
          for (const entry of unchanged)
            expect(changes.map((change) => change.id)).not.toContain(`${entry.id}-v2`);
        },
      ),
    );
  });

  it('every movement posts to two different ledger kinds', () => {
    for (const kind of MOVEMENT_KINDS) expect(MOVEMENTS[kind].debit).not.toBe(MOVEMENTS[kind].credit);
  });
});

describe('LEDGER_ACCOUNTS at boot', () => {
  it('takes kinds with per-format overrides and refuses an unknown kind or a non-string, naming the setting', () => {
    const config = loadConfig({ LEDGER_ACCOUNTS: '{"sales":"4000","xero":{"sales":"200"}}' });
    expect(config.LEDGER_ACCOUNTS).toEqual({ sales: '4000', xero: { sales: '200' } });
    expect(() => loadConfig({ LEDGER_ACCOUNTS: '{"salez":"4000"}' })).toThrow(/LEDGER_ACCOUNTS.*salez/s);
    expect(() => loadConfig({ LEDGER_ACCOUNTS: '{"sales":4000}' })).toThrow(/LEDGER_ACCOUNTS/);
    expect(() => loadConfig({ LEDGER_ACCOUNTS: 'not json' })).toThrow(/LEDGER_ACCOUNTS: is not JSON/);
  });

  it('takes per-currency keys, falling back to the plain kind, and refuses one of an unknown kind by name', () => {
    const { LEDGER_ACCOUNTS: accounts } = loadConfig({
      LEDGER_ACCOUNTS:
        '{"clearing":"1150","clearing.CAD":"1151","xero":{"clearing":"610","sales.cad":"201"}}',
    });
    expect(accounts).toEqual({
      clearing: '1150',
      'clearing.cad': '1151',
      xero: { clearing: '610', 'sales.cad': '201' },
    });
    expect(accountFor(accounts, 'csv', 'clearing', 'cad')).toBe('1151');
    expect(accountFor(accounts, 'csv', 'clearing', 'usd')).toBe('1150');
    expect(accountFor(accounts, 'xero', 'clearing', 'cad')).toBe('610');
    expect(accountFor(accounts, 'xero', 'sales', 'cad')).toBe('201');
    expect(accountFor(accounts, 'xero', 'sales', 'usd')).toBe('sales');
    expect(() => loadConfig({ LEDGER_ACCOUNTS: '{"clearingg.cad":"1151"}' })).toThrow(
      /LEDGER_ACCOUNTS\.clearingg\.cad: is a per-currency key for an unknown kind/,
    );
    expect(() => loadConfig({ LEDGER_ACCOUNTS: '{"netsuite":{"salez.usd":"4000"}}' })).toThrow(
      /LEDGER_ACCOUNTS\.netsuite\.salez\.usd: is a per-currency key for an unknown kind/,
    );
  });
});

describe('LEDGER_CURRENCY at boot', () => {
  it('defaults to usd, takes any ISO 4217 code in any case, and refuses anything else naming the setting', () => {
    expect(loadConfig({}).LEDGER_CURRENCY).toBe('usd');
    expect(loadConfig({ LEDGER_CURRENCY: 'CAD' }).LEDGER_CURRENCY).toBe('cad');
    for (const bad of ['usx', 'dollars', ''])
      expect(() => loadConfig({ LEDGER_CURRENCY: bad }), bad).toThrow(
        /LEDGER_CURRENCY: is not an ISO 4217 currency code/,
      );
  });
});
