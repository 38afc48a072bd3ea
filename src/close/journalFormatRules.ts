import { JOURNAL_FORMATS, type JournalFormat } from '../domain/ledgerAccounts.ts';
import type { JournalEntry } from './journal.ts';
import { type JournalSettings, type LedgerEntry, ledgerEntriesOf, xeroParts } from './journalFormats.ts';
import { renderCsv, renderIif, renderNetsuite, renderXero } from './journalRenderers.ts';

const CSV = 'text/csv; charset=utf-8';

/**
 * What a format is, said once: how it renders, the file's extension and content type, how a journal is split
 * into files (absent: one file), and its currency rule. `each line`: every line carries its currency, so one
 * file holds them all; `ledger base`: the importer books every amount in the ledger's base currency, so a file
 * holds one currency, and only that one.
 */
export type FormatRules = {
  render: (entries: LedgerEntry[], settings: Omit<JournalSettings, 'accounts'>) => string;
  extension: string;
  contentType: string;
  split?: <Entry extends Pick<JournalEntry, 'movement'> & { lines: unknown[] }>(
    entries: Entry[],
  ) => Entry[][];
  currency: 'each line' | 'ledger base';
};

export const JOURNAL_FORMAT_RULES: Record<JournalFormat, FormatRules> = {
  csv: { render: renderCsv, extension: 'csv', contentType: CSV, currency: 'each line' },
  xero: { render: renderXero, extension: 'csv', contentType: CSV, split: xeroParts, currency: 'ledger base' },
  quickbooks: {
    render: renderIif,
    extension: 'iif',
    contentType: 'text/plain; charset=utf-8',
    currency: 'ledger base',
  },
  netsuite: { render: renderNetsuite, extension: 'csv', contentType: CSV, currency: 'each line' },
};

/** The formats of each currency rule, in JOURNAL_FORMATS' order. */
export const formatsOf = (rule: FormatRules['currency']) =>
  JOURNAL_FORMATS.filter((format) => JOURNAL_FORMAT_RULES[format].currency === rule);

/** The journal in one of the four formats, its accounts named by the settings. */
export function renderJournal(format: JournalFormat, entries: JournalEntry[], settings: JournalSettings) {
  return JOURNAL_FORMAT_RULES[format].render(ledgerEntriesOf(format, entries, settings), settings);
}
