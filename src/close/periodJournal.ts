import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { JOURNAL_FORMATS } from '../domain/ledgerAccounts.ts';
import type { PeriodReport } from './buildPeriodReport.ts';
import { buildJournalEntries, storedEntries } from './journal.ts';
import { changesOf } from './journalChanges.ts';
import { formatsOf, JOURNAL_FORMAT_RULES } from './journalFormatRules.ts';
import { type JournalSettings, ledgerEntriesOf, type StoredJournal } from './journalFormats.ts';
import { findLatestVersion, findVersionJournal } from './journalQueries.ts';
import { PeriodError, type ServedPeriod } from './periodService.ts';

const VERSION = 'must be a version number (1, 2, …)';
const PART = 'must be a part number from 1 to 10000';

/**
 * What a journal download asks for, as the API's query and the CLI's options both name it: the format, the
 * currency, the part of a split format, and the version whose changes it holds. Either edge parses with this.
 */
export const journalRequestSchema = z.object({
  format: z.enum(JOURNAL_FORMATS, { error: `must be one of ${JOURNAL_FORMATS.join(', ')}` }),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code')
    .transform((value) => value.toLowerCase())
    .optional(),
  part: z.coerce.number<string>({ error: PART }).int(PART).min(1, PART).max(10_000, PART).optional(),
  changes_since: z.coerce
    .number<string>({ error: VERSION })
    .int(VERSION)
    .min(1, VERSION)
    .max(1_000_000, VERSION)
    .optional(),
});

export type JournalRequest = z.output<typeof journalRequestSchema>;

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

/** The journal a report books under today's LEDGER_* settings: what a close stores, and an open period serves. */
export function journalOf(report: PeriodReport, config: Config): StoredJournal {
  return { settings: journalSettingsOf(config), entries: buildJournalEntries(report.period, report.journal) };
}

/** A served period's journal: a closed one's as stored, an open one's as its report books it now. */
function servedJournal(served: ServedPeriod, config: Config): StoredJournal {
  return served.status === 'closed'
    ? { entries: storedEntries(served.journal.entries), settings: served.journal.settings }
    : journalOf(served.report, config);
}

/** The ledger's base currency a served period's journal is written in (LEDGER_CURRENCY at its close). */
const ledgerBaseOf = (served: ServedPeriod, config: Config) =>
  (served.status === 'closed' ? served.journal.settings.ledgerCurrency : undefined) ?? config.LEDGER_CURRENCY;

/**
 * A period's journal file in one format: a closed period's stored entries with the account names it was closed
 * with, an open one's from its report and today's LEDGER_* settings; with `changes_since`, the changes journal of
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
  const rules = JOURNAL_FORMAT_RULES[format];
  const { period } = served.report;
  const { entries: all, settings } = servedJournal(served, config);
  const currencies = [...new Set(all.map((entry) => entry.currency))].sort();
  if (currency === undefined && rules.currency === 'ledger base' && currencies.length > 1)
    throw new PeriodError(
      `currency: required, the period has several currencies (${currencies.join(', ')}) and ${format} takes one a file`,
    );
  const base = ledgerBaseOf(served, config);
  const foreign = (currency === undefined ? currencies : [currency]).filter((code) => code !== base);
  if (rules.currency === 'ledger base' && foreign.length > 0)
    throw new JournalRefusedError(
      422,
      'currency_not_supported',
      `currency: ${format} books every amount in the ledger's base currency (${base.toUpperCase()}), so a journal in ${foreign.map((code) => code.toUpperCase()).join(', ')} is refused; ${formatsOf('each line').join(' and ')} carry each line's currency`,
    );
  const ofCurrency = (entries: StoredJournal['entries'], named: JournalSettings) =>
    ledgerEntriesOf(
      format,
      entries.filter((entry) => currency === undefined || entry.currency === currency),
      named,
    );
  let entries = ofCurrency(all, settings);
  const changes = request.changes_since !== undefined && since !== null && served.status === 'closed';
  if (changes)
    entries = changesOf(
      ofCurrency(storedEntries(since.entries), since.settings),
      entries,
      request.changes_since as number,
      served.closed.version,
    );
  const part = partOf(request);
  let parts = 1;
  if (rules.split) {
    const split = rules.split(entries);
    parts = split.length;
    if ((part ?? 1) > parts) throw new PeriodError(`part: the journal has ${parts} part(s)`);
    entries = split[(part ?? 1) - 1] ?? [];
  }
  const name = [
    `journal-${period}`,
    ...(changes ? [`v${served.closed.version}-changes-since-v${request.changes_since}`] : []),
    format,
    ...(currency ? [currency] : []),
    ...(part === null ? [] : [`part${part}`]),
  ].join('-');
  return {
    text: rules.render(entries, settings),
    parts,
    fileName: `${name}.${rules.extension}`,
    contentType: rules.contentType,
  };
}

/** The part a request takes of a format that splits (the first unless named); null for a format that does not. */
export const partOf = (request: JournalRequest): number | null =>
  JOURNAL_FORMAT_RULES[request.format].split ? (request.part ?? 1) : null;

/**
 * The journal files a period offers, one a request: every format whose lines carry their currency whole; a
 * ledger-base format only in the base currency, one file a currency when the period has several.
 */
export function journalDownloads(served: ServedPeriod, config: Config) {
  const base = ledgerBaseOf(served, config);
  const currencies = [...new Set(served.report.journal.map((movement) => movement.currency))].sort();
  return JOURNAL_FORMATS.flatMap((format) => {
    if (JOURNAL_FORMAT_RULES[format].currency === 'each line' || currencies.length === 0)
      return [{ format, currency: null }];
    if (!currencies.includes(base)) return [];
    return [{ format, currency: currencies.length > 1 ? base : null }];
  });
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
