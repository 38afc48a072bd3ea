import { currencyExponent } from './amounts.ts';
import { type BaiRecord, leadingFields, logicalRecords, physicalCount } from './bai2Records.ts';
import { calendarDay, StatementError, type StatementInput, type StatementItem } from './statement.ts';

type Group = {
  line: number;
  asOf: string;
  currency: string;
  total: number;
  accounts: number;
  records: number;
};
type Account = { line: number; id: string; currency: string; total: number; records: number };

/**
 * A BAI2 file (the US banks' cash management format), read line by line as it streams in. It is strict:
 * every group and account must be closed by its trailer with the control totals and record counts the file
 * states, so a truncated or edited file is refused rather than half read. Detail (16) records with a type
 * code from 100 to 399 are credits, 400 to 699 debits; other codes move no money and are skipped.
 */
export async function* parseBai2(input: StatementInput): AsyncGenerator<StatementItem> {
  let header = false;
  let trailer = false;
  let group: Group | null = null;
  let account: Account | null = null;
  let fileRecords = 0;
  let groups = 0;
  let fileTotal = 0;
  for await (const record of logicalRecords(input)) {
    const { code, line, fields } = record;
    if (trailer) throw new StatementError(line, 'a record after the file trailer (99)');
    if (!header && code !== '01')
      throw new StatementError(line, 'not a BAI2 file: it does not start with 01');
    fileRecords += physicalCount(record);
    if (group) group.records += physicalCount(record);
    if (account) account.records += physicalCount(record);
    if (code === '01') {
      if (header) throw new StatementError(line, 'a second file header (01)');
      header = true;
    } else if (code === '02') {
      if (group) throw new StatementError(line, 'a group header (02) inside an open group');
      const asOf = yymmdd(fields[3] ?? '');
      if (asOf === null) throw new StatementError(line, 'the group as-of date is not a date (YYMMDD)');
      group = { line, asOf, currency: fields[6] || 'USD', total: 0, accounts: 0, records: 1 };
      groups += 1;
    } else if (code === '03') {
      if (!group || account) throw new StatementError(line, 'an account identifier (03) outside a group');
      const currency = (fields[1] || group.currency).toUpperCase();
      if (currencyExponent(currency) === null)
        throw new StatementError(line, 'the currency is not a known ISO 4217 code');
      account = {
        line,
        id: fields[0] ?? '',
        currency,
        total: summaryTotal(fields.slice(2), line),
        records: 1,
      };
      group.accounts += 1;
      yield { kind: 'period', bankAccount: account.id, currency, from: group.asOf, to: group.asOf };
    } else if (code === '16') {
      if (!group || !account) throw new StatementError(line, 'a transaction detail (16) outside an account');
      const detail = readDetail(record, group.asOf);
      account.total += detail.amount;
      if (detail.direction !== 0)
        yield {
          kind: 'line',
          line,
          bankAccount: account.id,
          valueDate: detail.valueDate,
          amount: detail.direction * detail.amount,
          currency: account.currency,
          description: detail.description,
          reference: detail.reference,
        };
    } else if (code === '49') {
      if (!group || !account) throw new StatementError(line, 'an account trailer (49) with no account');
      checkControl(line, 'account', fields, account.total, account.records);
      group.total += account.total;
      account = null;
    } else if (code === '98') {
      if (!group || account)
        throw new StatementError(line, 'a group trailer (98) with an account still open');
      checkControl(line, 'group', [fields[0] ?? '', fields[2] ?? ''], group.total, group.records);
      if (count(fields[1] ?? '', line, 'group trailer number of accounts') !== group.accounts)
        throw new StatementError(line, 'the group trailer counts a different number of accounts');
      fileTotal += group.total;
      group = null;
    } else if (code === '99') {
      if (group) throw new StatementError(line, 'the file trailer (99) with a group still open');
      checkControl(line, 'file', [fields[0] ?? '', fields[2] ?? ''], fileTotal, fileRecords);
      if (count(fields[1] ?? '', line, 'file trailer number of groups') !== groups)
        throw new StatementError(line, 'the file trailer counts a different number of groups');
      trailer = true;
    } else {
      throw new StatementError(line, 'not a BAI2 record code (01, 02, 03, 16, 88, 49, 98, 99)');
    }
  }
  if (!trailer) throw new StatementError(null, 'the file ends before its trailer (99): is it truncated?');
}

function yymmdd(text: string): string | null {
  const match = /^(\d{2})(\d{2})(\d{2})$/.exec(text);
  // BAI2 dates have two-digit years; its files are of this century.
  return match ? calendarDay(2000 + Number(match[1]), Number(match[2]), Number(match[3])) : null;
}

function cents(text: string, line: number, what: string): number {
  if (text === '') return 0;
  if (!/^[+-]?\d+$/.test(text)) throw new StatementError(line, `the ${what} is not an amount in cents`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new StatementError(line, `the ${what} is not an amount in cents`);
  return value;
}

// A count the file states (records, accounts, groups, distributions): digits only, never a sign, a fraction or
// an exponent, checked before it steers the reading.
function count(text: string, line: number, what: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new StatementError(line, `the ${what} is not a whole number`);
  return Number(text);
}

/**
 * How many fields a funds type adds after it: V a value date and time, S three amounts, D a count and that
 * many pairs; `available` is how many the record has after the funds type.
 */
function fundsTypeFields(type: string, next: string | undefined, available: number, line: number): number {
  const upper = type.toUpperCase();
  if (upper === '' || upper === '0' || upper === '1' || upper === '2' || upper === 'Z') return 0;
  if (upper === 'V') return 2;
  if (upper === 'S') return 3;
  if (upper === 'D') {
    const extra = 1 + 2 * count(next ?? '', line, 'distribution count of funds type D');
    if (extra > available)
      throw new StatementError(line, 'the distribution count of funds type D is more than the record holds');
    return extra;
  }
  throw new StatementError(line, 'not a BAI2 funds type (0, 1, 2, V, S, D, Z)');
}

// An account identifier's summaries: (type code, amount, item count, funds type + its fields) repeated.
function summaryTotal(fields: string[], line: number): number {
  let total = 0;
  for (let at = 0; at < fields.length && fields[at] !== ''; ) {
    total += cents(fields[at + 1] ?? '', line, 'summary amount');
    const type = fields[at + 3] ?? '';
    at += 4 + fundsTypeFields(type, fields[at + 4], fields.length - at - 4, line);
  }
  return total;
}

// A detail's fields: type code, amount, funds type, then the rest (funds type fields, references, text).
function readDetail(record: BaiRecord, asOf: string) {
  const { fields, line } = record;
  const [typeText = '', amountText = '', fundsType = '', rest = ''] = fields;
  if (!/^\d{3}$/.test(typeText)) throw new StatementError(line, 'the detail type code is not 3 digits');
  const typeCode = Number(typeText);
  const amount = cents(amountText, line, 'amount');
  if (amount < 0) throw new StatementError(line, 'a detail amount carries no sign: the type code gives it');
  // How many fields the rest holds is known once it is split, as far as the funds type needs.
  const extra = fundsTypeFields(fundsType, leadingFields(rest, 1)[0], Number.POSITIVE_INFINITY, line);
  const tail = leadingFields(rest, extra + 2);
  if (fundsType.toUpperCase() === 'D' && tail.length < extra)
    throw new StatementError(line, 'the distribution count of funds type D is more than the record holds');
  let valueDate = asOf;
  if (fundsType.toUpperCase() === 'V') {
    const date = yymmdd(tail[0] ?? '');
    if (date === null) throw new StatementError(line, 'the value date (funds type V) is not a date (YYMMDD)');
    valueDate = date;
  }
  const bankReference = (tail[extra] ?? '').trim();
  const customerReference = (tail[extra + 1] ?? '').trim();
  const text = (tail[extra + 2] ?? '').trim();
  const direction = typeCode >= 100 && typeCode <= 399 ? 1 : typeCode >= 400 && typeCode <= 699 ? -1 : 0;
  return {
    amount,
    direction,
    valueDate,
    reference: bankReference || customerReference,
    description: [bankReference ? customerReference : '', text].filter(Boolean).join(' '),
  };
}

function checkControl(line: number, level: string, fields: string[], total: number, records: number) {
  if (cents(fields[0] ?? '', line, `${level} control total`) !== total)
    throw new StatementError(
      line,
      `the ${level} control total does not match its records (edited or truncated?)`,
    );
  const stated = fields[1] ?? '';
  if (stated !== '' && count(stated, line, `${level} trailer number of records`) !== records)
    throw new StatementError(line, `the ${level} trailer counts a different number of records`);
}
