import { stringify } from 'csv-stringify/sync';
import { accountFor, type JournalFormat, type LedgerAccounts } from '../domain/ledgerAccounts.ts';
import { centsToDecimal } from './amounts.ts';
import type { JournalEntry } from './journal.ts';

/** A closed period's journal as stored: its entries and the account settings they were closed with. */
export type StoredJournal = { settings: JournalSettings; entries: JournalEntry[] };

/** A journal line with its account named as a format names it. */
export type LedgerLine = { account: string; debit: number; credit: number };
/** An entry as a format books it: its lines' accounts named. */
export type LedgerEntry = Omit<JournalEntry, 'lines'> & { lines: LedgerLine[] };

export type JournalSettings = {
  accounts: LedgerAccounts;
  xeroTaxRate: string;
  netsuiteSubsidiary?: string;
  /** LEDGER_CURRENCY at the close; absent in versions closed before it was a setting. */
  ledgerCurrency?: string;
};

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
const signed = (line: LedgerLine) => centsToDecimal(line.debit - line.credit);
const amountOrEmpty = (cents: number) => (cents === 0 ? '' : centsToDecimal(cents));

/**
 * Xero's rule: entries split into files of at most 300 lines, an entry never across two; and no bank
 * entries (Xero refuses manual journals to a bank account; its bank feed meets `in_transit` instead).
 */
export function xeroParts<Entry extends Pick<JournalEntry, 'movement'> & { lines: unknown[] }>(
  entries: Entry[],
): Entry[][] {
  const parts: Entry[][] = [[]];
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

/** The entries with each line's account as `format` names it under these settings. */
export function ledgerEntriesOf(
  format: JournalFormat,
  entries: JournalEntry[],
  settings: JournalSettings,
): LedgerEntry[] {
  return entries.map((entry) => ({
    ...entry,
    lines: entry.lines.map(({ kind, debit, credit }) => ({
      account: accountFor(settings.accounts, format, kind, entry.currency),
      debit,
      credit,
    })),
  }));
}

/** The journal in one of the four formats, its accounts named by the settings (renderLedgerEntries). */
export function renderJournal(format: JournalFormat, entries: JournalEntry[], settings: JournalSettings) {
  return renderLedgerEntries(format, ledgerEntriesOf(format, entries, settings), settings);
}

/**
 * Entries in one of the four formats, as a string; each carries the entry's id (csv `entry`, the end of Xero's
 * narration, IIF `DOCNUM`, NetSuite `External ID`). `entries` are of one currency except for csv.
 */
export function renderLedgerEntries(
  format: JournalFormat,
  entries: LedgerEntry[],
  settings: Omit<JournalSettings, 'accounts'>,
): string {
  if (format === 'csv') {
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
  if (format === 'xero') {
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
  if (format === 'quickbooks') {
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
