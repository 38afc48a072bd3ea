import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { buildJournalEntries, type JournalMovement, storedEntries } from '../../src/close/journal.ts';
import { renderJournal } from '../../src/close/journalFormatRules.ts';
import { XERO_LINES_PER_FILE, xeroParts } from '../../src/close/journalFormats.ts';

// Each format writer against its importer's published rules (docs/month-end.md names the sources): columns,
// dates, signs, grouping of lines into entries, and the entry id each format carries.
const PERIOD = '2026-10';
const SETTINGS = {
  accounts: { clearing: '1150', sales: '4000', quickbooks: { clearing: 'Clearing\tTab' } },
  xeroTaxRate: 'Tax Exempt',
};
const MOVEMENTS: JournalMovement[] = [
  { currency: 'usd', day: '2026-10-03', kind: 'sale', reference: null, amount: 12_345 },
  { currency: 'usd', day: '2026-10-03', kind: 'fee_processing', reference: null, amount: 370 },
  { currency: 'usd', day: '2026-10-28', kind: 'payout', reference: 'po_1', amount: 11_975 },
  { currency: 'usd', day: '2026-10-28', kind: 'unexplained', reference: 'po_1', amount: -5 },
  { currency: 'usd', day: '2026-10-30', kind: 'bank_credit', reference: 'po_1', amount: 11_975 },
  { currency: 'usd', day: '2026-10-01', kind: 'sale', reference: null, amount: 100, adjusts: '2026-09' },
];
const entries = buildJournalEntries(PERIOD, MOVEMENTS);
const cents = (value: string | undefined) => (value ? Math.round(Number(value) * 100) : 0);
const rowsOf = (text: string) => parse(text, { columns: true }) as Record<string, string>[];
const headerOf = (text: string) => text.slice(0, text.indexOf('\n')).trim();

describe('entry ids', () => {
  it('are made from what each entry is: period, currency, day and kind, the payout id, or the adjusted period', () => {
    expect(entries.map((entry) => entry.id)).toEqual([
      'tally-2026-10-usd-20261001-adj-2026-09-sale',
      'tally-2026-10-usd-20261003-sale',
      'tally-2026-10-usd-20261003-fee_processing',
      'tally-2026-10-usd-20261028-payout-po_1',
      'tally-2026-10-usd-20261028-unexplained-po_1',
      'tally-2026-10-usd-20261030-bank_credit-po_1',
    ]);
  });

  it('stay the same when another entry is added before them', () => {
    const late = { currency: 'usd', day: '2026-10-02', kind: 'sale', reference: null, amount: 1 } as const;
    const again = buildJournalEntries(PERIOD, [late, ...MOVEMENTS]);
    expect(again.filter((entry) => entry.day !== '2026-10-02')).toEqual(entries);
  });

  it('come in one order on every machine: currency, day (its adjustments after it), kind, payout by code point', () => {
    const day = { currency: 'usd', day: '2026-10-01', reference: null } as const;
    const mixed = buildJournalEntries(PERIOD, [
      { ...day, kind: 'payout', reference: 'po_a', amount: 1 },
      { ...day, kind: 'sale', amount: 1, adjusts: '2026-09' },
      { ...day, kind: 'payout', reference: 'po_B', amount: 1 },
      { ...day, kind: 'sale', amount: 1 },
      { ...day, kind: 'payout', reference: 'po_1', amount: 1 },
      { ...day, currency: 'cad', day: '2026-10-02', kind: 'sale', amount: 1 },
    ]);
    // A locale's collation would put po_a before po_B; code points put capitals first.
    expect(mixed.map((entry) => entry.id)).toEqual([
      'tally-2026-10-cad-20261002-sale',
      'tally-2026-10-usd-20261001-sale',
      'tally-2026-10-usd-20261001-payout-po_1',
      'tally-2026-10-usd-20261001-payout-po_B',
      'tally-2026-10-usd-20261001-payout-po_a',
      'tally-2026-10-usd-20261001-adj-2026-09-sale',
    ]);
  });

  it('are given to a version stored with positions instead, from the reference it was stored with', () => {
    const positioned = entries.map(({ id: _id, ...entry }, index) => ({ ...entry, n: index + 1 }));
    expect(storedEntries(positioned)).toEqual(entries);
  });
});

describe('csv', () => {
  it('has the contract columns, the entry id in `entry`, two decimals, and each entry balances', () => {
    const text = renderJournal('csv', entries, SETTINGS);
    expect(headerOf(text)).toBe('entry,date,account,debit,credit,currency,memo,reference');
    const rows = rowsOf(text);
    expect(rows[2]).toEqual({
      entry: 'tally-2026-10-usd-20261003-sale',
      date: '2026-10-03',
      account: '1150',
      debit: '123.45',
      credit: '',
      currency: 'USD',
      memo: '2026-10 Sales 2026-10-03',
      reference: 'sale-2026-10-03',
    });
    const sums = new Map<string, number>();
    for (const row of rows) {
      expect(`${row.debit}${row.credit}`).toMatch(/^\d+\.\d\d$/);
      sums.set(
        row.entry as string,
        (sums.get(row.entry as string) ?? 0) + cents(row.debit) - cents(row.credit),
      );
    }
    expect([...sums.keys()]).toEqual(entries.map((entry) => entry.id));
    expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
  });
});

describe('xero manual journal import', () => {
  const text = renderJournal('xero', xeroParts(entries)[0] ?? [], SETTINGS);
  const rows = rowsOf(text);

  it("has the template's columns in order, mandatory ones starred", () => {
    expect(headerOf(text)).toBe(
      '*Narration,*Date,Description,*AccountCode,*TaxRate,*Amount,TrackingName1,TrackingOption1',
    );
  });

  it('dates dd mmm yyyy, a positive amount a debit and a negative one a credit, the tax rate on every line', () => {
    expect(rows[2]).toMatchObject({
      '*Narration': '2026-10 Sales 2026-10-03 (tally-2026-10-usd-20261003-sale)',
      '*Date': '03 Oct 2026',
      '*AccountCode': '1150',
      '*TaxRate': 'Tax Exempt',
      '*Amount': '123.45',
    });
    expect(rows[3]).toMatchObject({ '*AccountCode': '4000', '*Amount': '-123.45' });
  });

  it('groups an entry by one narration and date ending in its id, summing to zero; no bank lines', () => {
    const sums = new Map<string, number>();
    for (const row of rows) {
      const key = `${row['*Narration']}|${row['*Date']}`;
      sums.set(key, (sums.get(key) ?? 0) + cents(row['*Amount']));
      expect(row['*AccountCode']).not.toBe('bank');
    }
    expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
    expect([...sums.keys()].map((key) => /\((tally-[^)]+)\)\|/.exec(key)?.[1])).toEqual(
      entries.filter((entry) => entry.movement !== 'bank_credit').map((entry) => entry.id),
    );
  });

  it('splits into files of at most 300 lines, never an entry across two', () => {
    const many = buildJournalEntries(
      PERIOD,
      Array.from({ length: 31 }, (_, day) =>
        ['sale', 'fee_processing', 'fee_platform', 'refund', 'payout'].map((kind) => ({
          currency: 'usd',
          day: `2026-10-${String(day + 1).padStart(2, '0')}`,
          kind: kind as JournalMovement['kind'],
          reference: kind === 'payout' ? `po_${day}` : null,
          amount: 1_00,
        })),
      ).flat(),
    );
    const parts = xeroParts(many);
    expect(parts.map((part) => part.length * 2)).toEqual([XERO_LINES_PER_FILE, 10]);
    expect(parts.flat()).toEqual(many);
  });
});

describe('quickbooks desktop IIF', () => {
  const text = renderJournal('quickbooks', entries, SETTINGS);
  const lines = text.split('\r\n').slice(0, -1);
  const fields = lines.map((line) => line.split('\t'));

  it('has the !TRNS, !SPL and !ENDTRNS headers, tab-separated, with DOCNUM', () => {
    expect(lines.slice(0, 3)).toEqual([
      '!TRNS\tTRNSTYPE\tDATE\tACCNT\tAMOUNT\tDOCNUM\tMEMO',
      '!SPL\tTRNSTYPE\tDATE\tACCNT\tAMOUNT\tDOCNUM\tMEMO',
      '!ENDTRNS',
    ]);
    expect(text.endsWith('ENDTRNS\r\n')).toBe(true);
  });

  it('writes each entry as a GENERAL JOURNAL TRNS, its SPL lines and ENDTRNS, summing to zero, DOCNUM the id on each', () => {
    const transactions: string[][][] = [];
    for (const row of fields.slice(3)) {
      if (row[0] === 'TRNS') transactions.push([row]);
      else if (row[0] === 'SPL') transactions.at(-1)?.push(row);
      else expect(row).toEqual(['ENDTRNS']);
    }
    expect(transactions).toHaveLength(entries.length);
    transactions.forEach((transaction, index) => {
      const id = entries[index]?.id;
      expect(transaction.map((row) => row[0])).toEqual(['TRNS', 'SPL']);
      for (const row of transaction) {
        expect(row).toHaveLength(7);
        expect(row[1]).toBe('GENERAL JOURNAL');
        expect(row[2]).toMatch(/^(0[1-9]|1[0-2])\/\d\d\/\d{4}$/);
        expect(row[5]).toBe(id);
        expect(row[6]).toContain(`(${id})`);
      }
      expect(transaction.reduce((sum, row) => sum + cents(row[4]), 0)).toBe(0);
    });
    expect(fields.find((row) => row[5] === 'tally-2026-10-usd-20261003-sale')).toEqual([
      'TRNS',
      'GENERAL JOURNAL',
      '10/03/2026',
      'Clearing Tab',
      '123.45',
      'tally-2026-10-usd-20261003-sale',
      '2026-10 Sales 2026-10-03 (tally-2026-10-usd-20261003-sale)',
    ]);
  });
});

describe('netsuite journal import', () => {
  it('groups an entry by External ID on consecutive lines, Debit or Credit filled, dates MM/DD/YYYY', () => {
    const text = renderJournal('netsuite', entries, SETTINGS);
    expect(headerOf(text)).toBe('External ID,Date,Currency,Account,Debit,Credit,Memo');
    const rows = rowsOf(text);
    const runs = rows.map((row) => row['External ID']).filter((id, index, ids) => id !== ids[index - 1]);
    expect(runs).toEqual(entries.map((entry) => entry.id));
    for (const row of rows) {
      expect([row.Debit, row.Credit].filter((value) => value !== '')).toHaveLength(1);
      expect(`${row.Debit}${row.Credit}`).toMatch(/^\d{1,10}\.\d\d$/);
      expect(row.Date).toMatch(/^\d\d\/\d\d\/\d{4}$/);
      expect(row.Currency).toBe('USD');
    }
    for (const id of runs) {
      const lines = rows.filter((row) => row['External ID'] === id);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.reduce((sum, row) => sum + cents(row.Debit) - cents(row.Credit), 0)).toBe(0);
    }
  });

  it('adds a Subsidiary column when one is configured', () => {
    const text = renderJournal('netsuite', entries, { ...SETTINGS, netsuiteSubsidiary: 'Tally Inc' });
    expect(headerOf(text)).toBe('External ID,Date,Subsidiary,Currency,Account,Debit,Credit,Memo');
    expect(rowsOf(text)[0]?.Subsidiary).toBe('Tally Inc');
  });
});

describe('a month of entries, more than each writer renders at once', () => {
  // 1,201 entries: past two parts of the writers' 500, so a part's edges show in every format.
  const many = buildJournalEntries(
    PERIOD,
    Array.from({ length: 1_201 }, (_, index) => ({
      currency: 'usd',
      day: `2026-10-${String((index % 31) + 1).padStart(2, '0')}`,
      kind: 'payout' as const,
      reference: `po_${String(index).padStart(4, '0')}`,
      amount: 1_000 + index,
    })),
  );
  const ids = many.map((entry) => entry.id);

  it('writes every entry once, in order, under one header, in csv and netsuite', () => {
    const csv = renderJournal('csv', many, SETTINGS);
    expect(csv.match(/^entry,date,/gm)).toHaveLength(1);
    const csvRows = rowsOf(csv);
    expect(csvRows).toHaveLength(2 * many.length);
    expect(csvRows.filter((_, index) => index % 2 === 0).map((row) => row.entry)).toEqual(ids);
    const last = many[1_200];
    expect(csvRows[2 * 1_200]).toMatchObject({
      entry: last?.id,
      debit: ((last?.lines[0].debit ?? 0) / 100).toFixed(2),
    });

    const netsuite = rowsOf(renderJournal('netsuite', many, SETTINGS));
    expect(netsuite).toHaveLength(2 * many.length);
    expect(netsuite.filter((_, index) => index % 2 === 1).map((row) => row['External ID'])).toEqual(ids);
  });

  it('writes every entry once, in order, under one header block, in IIF and in each Xero file', () => {
    const iif = renderJournal('quickbooks', many, SETTINGS).split('\r\n').slice(0, -1);
    expect(iif.filter((line) => line.startsWith('!'))).toHaveLength(3);
    expect(iif.filter((line) => line === 'ENDTRNS')).toHaveLength(many.length);
    expect(iif.filter((line) => line.startsWith('TRNS\t')).map((line) => line.split('\t')[5])).toEqual(ids);

    const parts = xeroParts(many);
    const narrations = parts.flatMap((part) => {
      const text = renderJournal('xero', part, SETTINGS);
      expect(text.match(/^\*Narration,/gm)).toHaveLength(1);
      return rowsOf(text)
        .filter((_, index) => index % 2 === 0)
        .map((row) => row['*Narration']);
    });
    expect(narrations.map((narration) => narration?.slice(narration.lastIndexOf('(') + 1, -1))).toEqual(ids);
  });
});
