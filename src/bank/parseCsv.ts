import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { currencyExponent, parseAmount } from './amounts.ts';
import { limitLineLength } from './lineLength.ts';
import {
  calendarDay,
  MAX_LINE_BYTES,
  StatementError,
  type StatementInput,
  type StatementItem,
} from './statement.ts';

type Column = 'date' | 'amount' | 'credit' | 'debit' | 'currency' | 'description' | 'reference' | 'account';

// Header spellings banks use, compared lower-case without spaces or punctuation; earlier ones win (a value
// date over a booking date).
const SPELLINGS: Record<Column, string[]> = {
  date: ['valuedate', 'date', 'bookingdate', 'transactiondate', 'postingdate', 'posteddate', 'postdate'],
  amount: ['amount', 'transactionamount'],
  credit: ['credit', 'credits', 'creditamount', 'deposit', 'deposits', 'moneyin', 'paidin'],
  debit: ['debit', 'debits', 'debitamount', 'withdrawal', 'withdrawals', 'moneyout', 'paidout'],
  currency: ['currency', 'currencycode', 'ccy'],
  description: ['description', 'details', 'transactiondetails', 'narrative', 'memo'],
  reference: [
    'reference',
    'ref',
    'referencenumber',
    'bankreference',
    'transactionreference',
    'transactionid',
  ],
  account: ['account', 'accountnumber', 'bankaccount', 'iban'],
};
const NAMES: Record<Exclude<Column, 'credit' | 'debit' | 'account'>, string> = {
  date: 'date (Value Date, Date, Booking Date)',
  amount: 'amount (Amount, or Credit and Debit)',
  currency: 'currency (Currency)',
  description: 'description (Description, Details)',
  reference: 'reference (Reference)',
};

const normalize = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Where each column is in the header row; a 422-worthy StatementError naming the first one missing. */
export function findColumns(header: string[]): Map<Column, number> {
  const names = header.map(normalize);
  const found = new Map<Column, number>();
  for (const [column, spellings] of Object.entries(SPELLINGS) as [Column, string[]][]) {
    const index = spellings.map((spelling) => names.indexOf(spelling)).find((at) => at >= 0);
    if (index !== undefined) found.set(column, index);
  }
  const splitAmount = found.has('credit') && found.has('debit');
  for (const column of ['date', 'amount', 'currency', 'description', 'reference'] as const) {
    if (column === 'amount' ? found.has('amount') || splitAmount : found.has(column)) continue;
    throw new StatementError(1, `the header has no ${NAMES[column]} column`);
  }
  return found;
}

// ISO (2024-03-01, 2024/03/01, optionally with a time), compact (20240301), or US month first (03/01/2024).
function parseDate(text: string): string | null {
  const value = text.trim();
  const iso =
    /^(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ].*)?$/.exec(value) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (iso) return calendarDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  return us ? calendarDay(Number(us[3]), Number(us[1]), Number(us[2])) : null;
}

const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed (is the file truncated?)',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the line does not have as many fields as the header',
  CSV_INVALID_CLOSING_QUOTE: 'a quote in the middle of a field',
  CSV_MAX_RECORD_SIZE: `the line is longer than ${MAX_LINE_BYTES / 1024} KB (a quote left open?)`,
};

/**
 * A CSV statement with a header row, read as it streams in; each record becomes a statement line. A physical
 * line, and a record (quoted fields may span lines), is at most MAX_LINE_BYTES.
 */
export async function* parseCsv(input: StatementInput): AsyncGenerator<StatementItem> {
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    info: true,
    trim: true,
    max_record_size: MAX_LINE_BYTES,
  });
  // A failure of the input (a line too long) destroys the parser with it, so the loop below throws it.
  const feeding = pipeline(Readable.from(limitLineLength(input)), parser).catch(() => undefined);
  let columns: Map<Column, number> | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (columns === null) {
        columns = findColumns(record);
        continue;
      }
      yield readRecord(record, columns, info.lines);
    }
  } catch (err) {
    if (err instanceof CsvError) {
      const line = typeof err.lines === 'number' ? err.lines : null;
      throw new StatementError(line, CSV_PROBLEMS[err.code] ?? 'not valid CSV');
    }
    throw err;
  } finally {
    parser.destroy();
    await feeding;
  }
  if (columns === null)
    throw new StatementError(null, 'the file is empty: a CSV statement starts with a header');
}

function readRecord(record: string[], columns: Map<Column, number>, line: number): StatementItem {
  const field = (column: Column) => {
    const index = columns.get(column);
    return index === undefined ? '' : (record[index] ?? '').trim();
  };
  const valueDate = parseDate(field('date'));
  if (valueDate === null) throw new StatementError(line, 'the date is not a date (YYYY-MM-DD or MM/DD/YYYY)');
  const currency = field('currency').toUpperCase();
  const exponent = currencyExponent(currency);
  if (exponent === null) throw new StatementError(line, 'the currency is not a known ISO 4217 code');
  return {
    kind: 'line',
    line,
    bankAccount: field('account'),
    valueDate,
    amount: readAmount(field, exponent, line),
    currency,
    description: field('description'),
    reference: field('reference'),
  };
}

function readAmount(field: (column: Column) => string, exponent: number, line: number): number {
  if (field('amount') !== '' || !(field('credit') || field('debit'))) {
    const amount = parseAmount(field('amount'), exponent);
    if (amount === null) throw new StatementError(line, 'the amount is not an amount');
    return amount;
  }
  const credit = field('credit') === '' ? 0 : parseAmount(field('credit'), exponent);
  const debit = field('debit') === '' ? 0 : parseAmount(field('debit'), exponent);
  if (credit === null) throw new StatementError(line, 'the credit is not an amount');
  if (debit === null) throw new StatementError(line, 'the debit is not an amount');
  if (credit !== 0 && debit !== 0) throw new StatementError(line, 'the line has both a credit and a debit');
  // A debit column holds what left the account, however the bank signs it.
  return credit !== 0 ? Math.abs(credit) : -Math.abs(debit);
}
