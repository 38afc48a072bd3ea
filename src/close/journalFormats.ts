import { stringify } from 'csv-stringify/sync';
import { accountFor, type JournalFormat, type LedgerAccounts } from '../domain/ledgerAccounts.ts';
import { centsToDecimal } from './amounts.ts';
import type { JournalEntry, JournalLine } from './journal.ts';

/** A closed period's journal as stored: its entries and the account settings they were closed with. */
export type StoredJournal = { settings: JournalSettings; entries: JournalEntry[] };

export type JournalSettings = { accounts: LedgerAccounts; xeroTaxRate: string; netsuiteSubsidiary?: string };

/** Xero refuses a manual journal file of more than this many lines. */
export const XERO_LINES_PER_FILE = 300;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const [year, month, day] = [
  (d: string) => d.slice(0, 4),
  (d: string) => d.slice(5, 7),
  (d: string) => d.slice(8, 10),
];
const xeroDate = (d: string) => `${day(d)} ${MONTHS[Number(month(d)) - 1]} ${year(d)}`;
const usDate = (d: string) => `${month(d)}/${day(d)}/${year(d)}`;
// Debit positive, credit negative: the signed amount Xero and IIF take.
const signed = (line: JournalLine) => centsToDecimal(line.debit - line.credit);
const amountOrEmpty = (cents: number) => (cents === 0 ? '' : centsToDecimal(cents));

/**
 * Xero's rule: entries split into files of at most 300 lines, an entry never across two; and no bank
 * entries (Xero refuses manual journals to a bank account; its bank feed meets `in_transit` instead).
 */
export function xeroParts(entries: JournalEntry[]): JournalEntry[][] {
  const parts: JournalEntry[][] = [[]];
  let lines = 0;
  for (const entry of entries.filter((candidate) => candidate.movement !== 'bank_credit')) {
    if (lines + entry.lines.length > XERO_LINES_PER_FILE) {
      parts.push([]);
      lines = 0;
    }
    parts.at(-1)?.push(entry);
    lines += entry.lines.length;
  }
  return parts;
}

/** The journal in one of the four formats, as a string. `entries` are of one currency except for csv. */
export function renderJournal(
  format: JournalFormat,
  entries: JournalEntry[],
  settings: JournalSettings,
): string {
  const account = (line: JournalLine) => accountFor(settings.accounts, format, line.kind);
  if (format === 'csv') {
    return stringify(
      entries.flatMap((entry) =>
        entry.lines.map((line) => [
          entry.n,
          entry.day,
          account(line),
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
  if (format === 'xero') {
    return stringify(
      entries.flatMap((entry) =>
        entry.lines.map((line) => [
          `${entry.memo} (${entry.reference})`,
          xeroDate(entry.day),
          entry.memo,
          account(line),
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
  if (format === 'quickbooks') {
    // IIF: tab-separated; a TRNS line, its SPL lines with the same columns, ENDTRNS. No quoting: tabs and line
    // breaks are taken out of the memo instead.
    const clean = (text: string) => text.replace(/[\t\r\n"]/g, ' ');
    const rows = [
      ['!TRNS', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'MEMO'],
      ['!SPL', 'TRNSTYPE', 'DATE', 'ACCNT', 'AMOUNT', 'MEMO'],
      ['!ENDTRNS'],
      ...entries.flatMap((entry) => [
        ...entry.lines.map((line, index) => [
          index === 0 ? 'TRNS' : 'SPL',
          'GENERAL JOURNAL',
          usDate(entry.day),
          clean(account(line)),
          signed(line),
          clean(`${entry.memo} (${entry.reference})`),
        ]),
        ['ENDTRNS'],
      ]),
    ];
    return `${rows.map((row) => row.join('\t')).join('\r\n')}\r\n`;
  }
  const subsidiary = settings.netsuiteSubsidiary;
  return stringify(
    entries.flatMap((entry) =>
      entry.lines.map((line) => [
        `tally-${entry.period}-${entry.n}`,
        usDate(entry.day),
        ...(subsidiary === undefined ? [] : [subsidiary]),
        entry.currency.toUpperCase(),
        account(line),
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
