import Papa from 'papaparse';
import { centsToDecimal } from './amounts.ts';
import type { JournalSettings, LedgerEntry, LedgerLine } from './journalFormats.ts';

// Each renderer writes entries with their accounts named, and carries every entry's id (csv `entry`, the end of
// Xero's narration, IIF `DOCNUM`, NetSuite `External ID`).
type Settings = Omit<JournalSettings, 'accounts'>;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const [year, month, day] = [
  (d: string) => d.slice(0, 4),
  (d: string) => d.slice(5, 7),
  (d: string) => d.slice(8, 10),
];
const xeroDate = (d: string) => `${day(d)} ${MONTHS[Number(month(d)) - 1]} ${year(d)}`;
const usDate = (d: string) => `${month(d)}/${day(d)}/${year(d)}`;
// Debit positive, credit negative: the signed amount Xero and IIF take.
const signed = (line: LedgerLine) => centsToDecimal(line.debit - line.credit);
const amountOrEmpty = (cents: number) => (cents === 0 ? '' : centsToDecimal(cents));

// A file is written a few hundred entries at a time, so the rows of a whole month are never held at once.
const ENTRIES_AT_ONCE = 500;
function inParts(entries: LedgerEntry[], render: (part: LedgerEntry[]) => string): string {
  const parts: string[] = [];
  for (let start = 0; start < entries.length; start += ENTRIES_AT_ONCE)
    parts.push(flattened(render(entries.slice(start, start + ENTRIES_AT_ONCE))));
  return parts.join('');
}

/**
 * The text as one flat string in memory. A part comes out of papaparse (or a template) as a tree of the pieces it
 * was joined from, which V8 copies into one string only when something reads its characters; until the file is
 * joined, every piece of every part stays alive and is moved to the old generation. Reading it as a number makes
 * V8 copy it now, and its pieces die young: the journal of a million-payment month is written in about 0.7 of the
 * time (docs/performance.md).
 */
function flattened(text: string): string {
  Number(text);
  return text;
}

/**
 * CSV rows, each ended by a line feed; a field quoted when it holds a comma, a quote or a line break. Written by
 * papaparse, which makes a fifteenth of the garbage csv-stringify makes for the same rows (decision 0024).
 */
const csvRows = (rows: string[][]) => (rows.length === 0 ? '' : `${Papa.unparse(rows, { newline: '\n' })}\n`);

/** A CSV file: its header, then each entry's rows. */
const csvOf = (entries: LedgerEntry[], columns: string[], rowsOf: (entry: LedgerEntry) => string[][]) =>
  csvRows([columns]) + inParts(entries, (part) => csvRows(part.flatMap(rowsOf)));

/** Tally's own CSV: one row a line, every currency in one file. */
export function renderCsv(entries: LedgerEntry[]): string {
  return csvOf(
    entries,
    ['entry', 'date', 'account', 'debit', 'credit', 'currency', 'memo', 'reference'],
    (entry) =>
      entry.lines.map((line) => [
        entry.id,
        entry.day,
        line.account,
        amountOrEmpty(line.debit),
        amountOrEmpty(line.credit),
        entry.currency.toUpperCase(),
        entry.memo,
        entry.reference,
      ]),
  );
}

/** Xero's manual journal import. */
export function renderXero(entries: LedgerEntry[], settings: Settings): string {
  const columns = [
    '*Narration',
    '*Date',
    'Description',
    '*AccountCode',
    '*TaxRate',
    '*Amount',
    'TrackingName1',
    'TrackingOption1',
  ];
  return csvOf(entries, columns, (entry) =>
    entry.lines.map((line) => [
      `${entry.memo} (${entry.id})`,
      xeroDate(entry.day),
      entry.memo,
      line.account,
      settings.xeroTaxRate,
      signed(line),
      '',
      '',
    ]),
  );
}

/** QuickBooks Desktop's IIF. */
export function renderIif(entries: LedgerEntry[]): string {
  // IIF: tab-separated; a TRNS line, its SPL lines with the same columns, ENDTRNS. No quoting: tabs and line
  // breaks are taken out of the memo instead.
  const clean = (text: string) => text.replace(/[\t\r\n"]/g, ' ');
  const lines = (rows: string[][]) => rows.map((row) => `${row.join('\t')}\r\n`).join('');
  const header = [
    ['!TRNS', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'DOCNUM', 'MEMO'],
    ['!SPL', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'DOCNUM', 'MEMO'],
    ['!ENDTRNS'],
  ];
  return (
    lines(header) +
    inParts(entries, (part) =>
      lines(
        part.flatMap((entry) => [
          ...entry.lines.map((line, index) => [
            index === 0 ? 'TRNS' : 'SPL',
            'GENERAL JOURNAL',
            usDate(entry.day),
            clean(line.account),
            signed(line),
            entry.id,
            // The id again: QuickBooks keeps a short document number, the memo keeps the whole id.
            clean(`${entry.memo} (${entry.id})`),
          ]),
          ['ENDTRNS'],
        ]),
      ),
    )
  );
}

/** NetSuite's journal entry import, with a subsidiary column when one is configured. */
export function renderNetsuite(entries: LedgerEntry[], settings: Settings): string {
  const subsidiary = settings.netsuiteSubsidiary;
  const columns = [
    'External ID',
    'Date',
    ...(subsidiary === undefined ? [] : ['Subsidiary']),
    'Currency',
    'Account',
    'Debit',
    'Credit',
    'Memo',
  ];
  return csvOf(entries, columns, (entry) =>
    entry.lines.map((line) => [
      entry.id,
      usDate(entry.day),
      ...(subsidiary === undefined ? [] : [subsidiary]),
      entry.currency.toUpperCase(),
      line.account,
      amountOrEmpty(line.debit),
      amountOrEmpty(line.credit),
      `${entry.memo} (${entry.reference})`,
    ]),
  );
}
