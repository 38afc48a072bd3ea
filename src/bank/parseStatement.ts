import { parseBai2 } from './parseBai2.ts';
import { parseCamt053 } from './parseCamt053.ts';
import { parseCsv } from './parseCsv.ts';
import type { StatementFormat, StatementInput, StatementItem } from './statement.ts';

const PARSERS: Record<StatementFormat, (input: StatementInput) => AsyncGenerator<StatementItem>> = {
  csv: parseCsv,
  camt053: parseCamt053,
  bai2: parseBai2,
};

/** The statement's lines and periods, read as the format named (never guessed from the content). */
export function parseStatement(
  format: StatementFormat,
  input: StatementInput,
): AsyncGenerator<StatementItem> {
  return PARSERS[format](input);
}
