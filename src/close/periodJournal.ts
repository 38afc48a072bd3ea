import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { BASE_CURRENCY_FORMATS, CURRENCY_FORMATS, type JournalFormat } from '../domain/ledgerAccounts.ts';
import { buildJournalEntries, storedEntries } from './journal.ts';
import { changesOf } from './journalChanges.ts';
import {
  type JournalSettings,
  ledgerEntriesOf,
  renderLedgerEntries,
  type StoredJournal,
  xeroParts,
} from './journalFormats.ts';
import { findLatestVersion, findVersionJournal } from './journalQueries.ts';
import { PeriodError, type ServedPeriod } from './periodService.ts';

export type JournalRequest = {
  format: JournalFormat;
  currency?: string | undefined;
  part?: number | undefined;
  /** Serve the changes journal of the closed version against this earlier one. */
  changesSince?: number | undefined;
};

/** A journal the period's state refuses: 409 (no later version to diff) or 422 (a currency the format cannot carry). */
export class JournalRefusedError extends Error {
  readonly status: 409 | 422;
  readonly code: string;
  constructor(status: 409 | 422, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The settings a journal is written with now: the LEDGER_* configuration. */
export function journalSettingsOf(config: Config): JournalSettings {
  return {
    accounts: config.LEDGER_ACCOUNTS,
    xeroTaxRate: config.LEDGER_XERO_TAX_RATE,
    ...(config.LEDGER_NETSUITE_SUBSIDIARY === undefined
      ? {}
      : { netsuiteSubsidiary: config.LEDGER_NETSUITE_SUBSIDIARY }),
    ledgerCurrency: config.LEDGER_CURRENCY,
  };
}

/**
 * A period's journal file in one format: a closed period's stored entries with the account names it was closed
 * with, an open one's from its report and today's LEDGER_* settings; with `changesSince`, the changes journal of
 * the closed version against that earlier one (`since`, its stored journal). Refusals naming the parameter
 * (a currency required, a part beyond the last) are PeriodErrors; the state's are JournalRefusedErrors.
 */
export function periodJournal(
  served: ServedPeriod,
  config: Config,
  request: JournalRequest,
  since: StoredJournal | null = null,
) {
  const { format, currency } = request;
  const { period } = served.report;
  const { entries: all, settings } =
    served.status === 'closed'
      ? { entries: storedEntries(served.journal.entries), settings: served.journal.settings }
      : { entries: buildJournalEntries(period, served.report.journal), settings: journalSettingsOf(config) };
  const currencies = [...new Set(all.map((entry) => entry.currency))].sort();
  if (currency === undefined && format !== 'csv' && format !== 'netsuite' && currencies.length > 1)
    throw new PeriodError(
      `currency: required, the period has several currencies (${currencies.join(', ')}) and ${format} takes one a file`,
    );
  const base = settings.ledgerCurrency ?? config.LEDGER_CURRENCY;
  const foreign = (currency === undefined ? currencies : [currency]).filter((code) => code !== base);
  if ((BASE_CURRENCY_FORMATS as readonly string[]).includes(format) && foreign.length > 0)
    throw new JournalRefusedError(
      422,
      'currency_not_supported',
      `currency: ${format} books every amount in the ledger's base currency (${base.toUpperCase()}), so a journal in ${foreign.map((code) => code.toUpperCase()).join(', ')} is refused; ${CURRENCY_FORMATS.join(' and ')} carry each line's currency`,
    );
  const ofCurrency = (entries: StoredJournal['entries'], named: JournalSettings) =>
    ledgerEntriesOf(
      format,
      entries.filter((entry) => currency === undefined || entry.currency === currency),
      named,
    );
  let entries = ofCurrency(all, settings);
  const changes = request.changesSince !== undefined && since !== null && served.status === 'closed';
  if (changes)
    entries = changesOf(
      ofCurrency(storedEntries(since.entries), since.settings),
      entries,
      request.changesSince as number,
      served.closed.version,
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
  const name = [
    `journal-${period}`,
    ...(changes ? [`v${served.closed.version}-changes-since-v${request.changesSince}`] : []),
    format,
    ...(currency ? [currency] : []),
    ...(format === 'xero' ? [`part${request.part ?? 1}`] : []),
  ].join('-');
  return { text: renderLedgerEntries(format, entries, settings), parts, fileName: `${name}.${extension}` };
}

/**
 * The stored journal of the version a changes journal is taken against, checked: a version the period has not
 * reached is a PeriodError naming `changes_since`; a period not closed at a later version is refused (409),
 * naming the versions. Null when no changes were asked for.
 */
export async function findChangesBase(
  db: Queryable,
  served: ServedPeriod,
  changesSince: number | undefined,
): Promise<StoredJournal | null> {
  if (changesSince === undefined) return null;
  const { period } = served.report;
  const latest = await findLatestVersion(db, period);
  if (changesSince > latest)
    throw new PeriodError(
      latest === 0
        ? `changes_since: ${period} has never been closed, so it has no version ${changesSince}`
        : `changes_since: ${period} has not reached version ${changesSince} (its latest is version ${latest})`,
    );
  if (served.status !== 'closed')
    throw new JournalRefusedError(
      409,
      'not_closed_at_a_later_version',
      `changes_since: ${period} is open (reopened after version ${latest}); the changes since version ${changesSince} can be taken once it is closed again`,
    );
  if (served.closed.version <= changesSince)
    throw new JournalRefusedError(
      409,
      'not_closed_at_a_later_version',
      `changes_since: ${period} is closed at version ${served.closed.version}, not at a version later than ${changesSince}`,
    );
  const journal = await findVersionJournal(db, period, changesSince);
  return journal === null ? null : (JSON.parse(journal) as StoredJournal);
}
