/** The file formats a bank statement can be imported from. */
export const STATEMENT_FORMATS = ['csv', 'camt053', 'bai2'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** One booked line of a statement: amounts in integer minor units, credits positive, debits negative. */
export type StatementLine = {
  kind: 'line';
  /** The line of the file it starts on, for messages. */
  line: number;
  bankAccount: string;
  /** YYYY-MM-DD. */
  valueDate: string;
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  description: string;
  reference: string;
};

/** Dates a statement says it covers for an account (camt.053's FrToDt, a BAI2 group's as-of date). */
export type StatementPeriod = {
  kind: 'period';
  bankAccount: string;
  currency: string | null;
  from: string;
  to: string;
};

export type StatementItem = StatementLine | StatementPeriod;

/** What a parser reads: the file's bytes, as a stream or any async iterable of chunks. */
export type StatementInput = AsyncIterable<Buffer | string>;

/** A file that cannot be read as the format named; the message names the line and the problem. */
export class StatementError extends Error {
  readonly line: number | null;
  readonly problem: string;
  constructor(line: number | null, problem: string) {
    super(line === null ? problem : `line ${line}: ${problem}`);
    this.line = line;
    this.problem = problem;
  }
}

// Caps on what one statement file may hold, so that no file, however made, holds a parser for long or grows
// its memory past a bound (docs/reliability.md, "Limits on uploaded files").
/** Bytes of one CSV or BAI2 line, and of a BAI2 record with its continuations (88). */
export const MAX_LINE_BYTES = 65_536;
/** Characters of one camt.053 text node, and between one `<` and the next (a tag, a comment). */
export const MAX_XML_TEXT = 65_536;
/** How deep camt.053 elements may nest; a real statement nests about 10 deep. */
export const MAX_XML_DEPTH = 64;
/** How long reading one file may take, past which the import is refused (waits on the database excluded). */
export const PARSE_BUDGET_MS = 60_000;
/** The largest statement file accepted, in bytes. */
export const MAX_STATEMENT_BYTES = 256 * 1024 * 1024;

/** YYYY-MM-DD when it names a day of the calendar (year 1 or later), else null. */
export function calendarDay(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1) return null;
  if (date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
