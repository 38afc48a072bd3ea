import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { importStatement } from '../bank/importStatement.ts';
import { STATEMENT_FORMATS, type StatementFormat } from '../bank/statement.ts';
import { createPool } from '../db/pool.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { createProgress } from './progress.ts';
import { usages } from './usages.ts';

const BY_EXTENSION: Record<string, StatementFormat> = {
  '.csv': 'csv',
  '.xml': 'camt053',
  '.053': 'camt053',
  '.camt053': 'camt053',
  '.bai': 'bai2',
  '.bai2': 'bai2',
};

function formatOf(file: string, given: string | undefined): StatementFormat {
  if (given !== undefined) {
    const format = STATEMENT_FORMATS.find((known) => known === given);
    if (!format)
      throw new Error(`--format must be one of ${STATEMENT_FORMATS.join(', ')}; usage: ${usages.bank}`);
    return format;
  }
  const format = BY_EXTENSION[path.extname(file).toLowerCase()];
  if (!format)
    throw new Error(`cannot tell the format from the file name: give --format; usage: ${usages.bank}`);
  return format;
}

/**
 * Imports a bank statement file, as POST /api/bank-statements does: whole or not at all, lines already
 * imported skipped, credits matched to paid payouts. Progress on a terminal, then one summary line.
 */
export async function bankCommand(args: string[], { config, log }: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string' } },
  });
  const [action, file, ...extra] = positionals;
  if (action !== 'import' || !file || extra.length > 0) throw new Error(`usage: ${usages.bank}`);
  const format = formatOf(file, values.format);
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) throw new Error(`cannot read ${file}`);
  const pool = createPool(await resolveDatabaseUrl(config), log, 2);
  const progress = createProgress(size);
  try {
    const result = await importStatement(pool, file, {
      format,
      importedBy: 'cli',
      now: new Date(),
      config,
      onProgress: ({ lines, bytes }) => progress.update(bytes, `bytes, ${lines} lines`),
    });
    const already = result.created ? '' : ' (this file was imported before: nothing added)';
    process.stdout.write(
      `statement ${result.id}: ${result.lines} lines, ${result.credits} credits, ${result.duplicates} duplicates, ${result.matched} matched${already}\n`,
    );
    return 0;
  } finally {
    progress.finish();
    await pool.end();
  }
}
