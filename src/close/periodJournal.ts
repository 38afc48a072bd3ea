import type { Config } from '../config.ts';
import type { JournalFormat } from '../domain/ledgerAccounts.ts';
import { buildJournalEntries, storedEntries } from './journal.ts';
import { ledgerEntriesOf, renderLedgerEntries, xeroParts } from './journalFormats.ts';
import { PeriodError, type ServedPeriod } from './periodService.ts';

export type JournalRequest = {
  format: JournalFormat;
  currency?: string | undefined;
  part?: number | undefined;
};

/**
 * A period's journal file in one format: a closed period's stored entries with the account names it was closed
 * with, an open one's from its report and today's LEDGER_ACCOUNTS. Refusals (a currency required, a part
 * beyond the last) are PeriodErrors naming the parameter.
 */
export function periodJournal(served: ServedPeriod, config: Config, request: JournalRequest) {
  const { format, currency } = request;
  const { period } = served.report;
  const currencies = [...new Set(served.report.journal.map((movement) => movement.currency))].sort();
  if (currency === undefined && format !== 'csv' && format !== 'netsuite' && currencies.length > 1)
    throw new PeriodError(
      `currency: required, the period has several currencies (${currencies.join(', ')}) and ${format} takes one a file`,
    );
  const { entries: all, settings } =
    served.status === 'closed'
      ? { entries: storedEntries(served.journal.entries), settings: served.journal.settings }
      : {
          entries: buildJournalEntries(period, served.report.journal),
          settings: {
            accounts: config.LEDGER_ACCOUNTS,
            xeroTaxRate: config.LEDGER_XERO_TAX_RATE,
            netsuiteSubsidiary: config.LEDGER_NETSUITE_SUBSIDIARY,
          },
        };
  let entries = ledgerEntriesOf(
    format,
    all.filter((entry) => currency === undefined || entry.currency === currency),
    settings,
  );
  let parts = 1;
  if (format === 'xero') {
    const split = xeroParts(entries);
    parts = split.length;
    const part = request.part ?? 1;
    if (part > parts) throw new PeriodError(`part: the journal has ${parts} part(s)`);
    entries = split[part - 1] ?? [];
  }
  const extension = format === 'quickbooks' ? 'iif' : 'csv';
  const name = `journal-${period}-${format}${currency ? `-${currency}` : ''}${format === 'xero' ? `-part${request.part ?? 1}` : ''}`;
  return { text: renderLedgerEntries(format, entries, settings), parts, fileName: `${name}.${extension}` };
}
