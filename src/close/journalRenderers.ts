import { stringify } from 'csv-stringify/sync';
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

/** Tally's own CSV: one row a line, every currency in one file. */
export function renderCsv(entries: LedgerEntry[]): string {
  return stringify(
    entries.flatMap((entry) =>
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
    ),
    {
      header: true,
      columns: ['entry', 'date', 'account', 'debit', 'credit', 'currency', 'memo', 'reference'],
    },
  );
}

/** Xero's manual journal import. */
export function renderXero(entries: LedgerEntry[], settings: Settings): string {
  return stringify(
    entries.flatMap((entry) =>
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
    ),
    {
      header: true,
      columns: [
        '*Narration',
        '*Date',
        'Description',
        '*AccountCode',
        '*TaxRate',
        '*Amount',
        'TrackingName1',
        'TrackingOption1',
      ],
    },
  );
}

/** QuickBooks Desktop's IIF. */
export function renderIif(entries: LedgerEntry[]): string {
  // IIF: tab-separated; a TRNS line, its SPL lines with the same columns, ENDTRNS. No quoting: tabs and line
  // breaks are taken out of the memo instead.
  const clean = (text: string) => text.replace(/[\t\r\n"]/g, ' ');
  const rows = [
    ['!TRNS', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'DOCNUM', 'MEMO'],
    ['!SPL', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'DOCNUM', 'MEMO'],
    ['!ENDTRNS'],
    ...entries.flatMap((entry) => [
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
  ];
  return `${rows.map((row) => row.join('\t')).join('\r\n')}\r\n`;
}

/** NetSuite's journal entry import, with a subsidiary column when one is configured. */
export function renderNetsuite(entries: LedgerEntry[], settings: Settings): string {
  const subsidiary = settings.netsuiteSubsidiary;
  return stringify(
    entries.flatMap((entry) =>
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
    ),
    {
      header: true,
      columns: [
        'External ID',
        'Date',
        ...(subsidiary === undefined ? [] : ['Subsidiary']),
        'Currency',
        'Account',
        'Debit',
        'Credit',
        'Memo',
      ],
    },
  );
}
