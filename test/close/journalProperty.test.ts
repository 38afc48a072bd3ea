import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildJournalEntries } from '../../src/close/journal.ts';
import { activityOf, emptyTotals, heldOf, walkHolds, walkOf } from '../../src/close/walk.ts';
import { loadConfig } from '../../src/config.ts';
import { MOVEMENT_KINDS, MOVEMENTS } from '../../src/domain/movementKinds.ts';

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
        fc.uniqueArray(movement, {
          selector: (m) => `${m.currency} ${m.day} ${m.kind} ${m.reference}`,
          maxLength: 60,
        }),
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
});
