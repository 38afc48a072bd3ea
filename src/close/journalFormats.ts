import { accountFor, type JournalFormat, type LedgerAccounts } from '../domain/ledgerAccounts.ts';
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
