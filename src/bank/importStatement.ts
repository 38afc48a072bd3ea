import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { matchBankDeposits } from './matchDeposits.ts';
import { lockBankMatching } from './matchQueries.ts';
import { parseStatementFile } from './parseStatementFile.ts';
import type { StatementFormat, StatementLine, StatementPeriod } from './statement.ts';
import { StatementError } from './statement.ts';
import {
  countMatchedCredits,
  createImportTable,
  findStatementByFile,
  insertImportLines,
  insertNewLines,
  insertStatement,
  setStatementDuplicates,
  summarizeImport,
} from './statementQueries.ts';

export type ImportResult = {
  id: number;
  lines: number;
  credits: number;
  duplicates: number;
  matched: number;
  /** False when this very file was imported before: nothing was stored, the earlier statement is answered. */
  created: boolean;
};

export type ImportOptions = {
  format: StatementFormat;
  importedBy: string;
  now: Date;
  config: Pick<Config, 'BANK_MATCH_DAYS' | 'BANK_PROVIDER_PATTERN'>;
  /** Called as lines are stored, with how many lines and bytes of the file so far. */
  onProgress?: (progress: { lines: number; bytes: number }) => void;
  /** How long reading the file may take (statement.ts PARSE_BUDGET_MS unless given). */
  parseBudgetMs?: number;
};

/**
 * Imports one statement file whole or not at all, in one transaction: a worker thread reads the file and its
 * lines stream into a session table in batches, then the ones not already stored (by the contract's key) are
 * added, and credits are matched to paid payouts again. A file that is not the format named, breaks a limit
 * or takes longer than its time budget to read throws a StatementError, and nothing is stored.
 */
export async function importStatement(pool: Pool, file: string, options: ImportOptions) {
  return withTransaction(pool, async (client): Promise<ImportResult> => {
    // A 50 MB statement is hundreds of thousands of lines: more than the pool's default per-statement limit.
    await client.query(`set local statement_timeout = '10min'`);
    await createImportTable(client);
    const stated = { days: [] as string[], accounts: new Set<string>(), currencies: new Set<string>() };
    let seq = 0;
    const sha256 = await parseStatementFile(file, options.format, {
      budgetMs: options.parseBudgetMs,
      onItems: async (items, bytes) => {
        const lines: (StatementLine & { seq: number })[] = [];
        for (const item of items) {
          if (item.kind === 'period') state(stated, item);
          else {
            seq += 1;
            lines.push({ ...item, seq });
          }
        }
        if (lines.length > 0) await insertImportLines(client, lines);
        options.onProgress?.({ lines: seq, bytes });
      },
    });
    const summary = await summarizeImport(client);
    // From here on, imports take turns: two copies of one file sent at once are one statement.
    await lockBankMatching(client);
    const earlier = await findStatementByFile(client, options.format, sha256);
    if (earlier) {
      await matchBankDeposits(client, options.config, options.now);
      const matched = await countMatchedCredits(client);
      return { ...earlier, duplicates: earlier.lines, matched, created: false };
    }
    // The dates the file states it covers; only a file that states none is taken to cover its lines' days.
    const days =
      stated.days.length > 0 ? stated.days : [summary.firstDay ?? [], summary.lastDay ?? []].flat();
    const [coversFrom] = days;
    const coversTo = days.at(-1);
    if (coversFrom === undefined || coversTo === undefined)
      throw new StatementError(null, 'the statement has no lines and states no dates');
    const accounts = new Set([...summary.accounts, ...stated.accounts]);
    accounts.delete('');
    const currencies = new Set([...summary.currencies, ...stated.currencies]);
    const id = await insertStatement(client, {
      format: options.format,
      bankAccount: [...accounts].sort().join(', '),
      sha256,
      coversFrom,
      coversTo,
      currencies: [...currencies].sort(),
      lines: summary.lines,
      credits: summary.credits,
      importedBy: options.importedBy,
      importedAt: options.now,
    });
    const added = await insertNewLines(client, id);
    await setStatementDuplicates(client, id, summary.lines - added);
    await matchBankDeposits(client, options.config, options.now);
    const matched = await countMatchedCredits(client);
    return {
      id,
      lines: summary.lines,
      credits: summary.credits,
      duplicates: summary.lines - added,
      matched,
      created: true,
    };
  });
}

// Only the first and last day stated are kept: a daily BAI2 file of years states a period per day.
function state(
  stated: { days: string[]; accounts: Set<string>; currencies: Set<string> },
  period: StatementPeriod,
) {
  stated.days = [...stated.days, period.from, period.to].sort();
  stated.days = [stated.days[0] ?? period.from, stated.days.at(-1) ?? period.to];
  stated.accounts.add(period.bankAccount);
  if (period.currency) stated.currencies.add(period.currency);
}
