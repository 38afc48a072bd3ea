import { SaxesParser } from 'saxes';
import { currencyExponent, parseAmount } from './amounts.ts';
import {
  calendarDay,
  MAX_XML_DEPTH,
  MAX_XML_TEXT,
  StatementError,
  type StatementInput,
  type StatementItem,
} from './statement.ts';

type Entry = {
  line: number;
  amount: string;
  currency: string;
  direction: string;
  status: string;
  valueDate: string;
  bookingDate: string;
  entryReference: string;
  servicerReference: string;
  endToEndId: string;
  transactionReference: string;
  information: string[];
};
type Statement = { account: string; currency: string | null; from: string; to: string };

const localName = (name: string) => name.slice(name.indexOf(':') + 1);
// ISO 20022 fills a reference it was not given with this word.
const given = (reference: string) => (reference === 'NOTPROVIDED' ? '' : reference);

function isoDay(text: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text.trim());
  return match ? calendarDay(Number(match[1]), Number(match[2]), Number(match[3])) : null;
}

const tooLongText = `the text of an element is longer than ${MAX_XML_TEXT / 1024} KB`;

/**
 * A camt.053 (ISO 20022 BkToCstmrStmt) statement, read as it streams in: each booked `Ntry` becomes a line
 * (pending and informational entries are not money that moved), each `Stmt` with a `FrToDt` a period.
 * Elements nest at most MAX_XML_DEPTH deep, and an element's text is at most MAX_XML_TEXT characters.
 */
export async function* parseCamt053(input: StatementInput): AsyncGenerator<StatementItem> {
  const parser = new SaxesParser({ position: true });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const path: string[] = [];
  const ready: StatementItem[] = [];
  let text = '';
  let statement: Statement | null = null;
  let entry: Entry | null = null;
  let sawStatement = false;

  parser.on('opentag', (node) => {
    const name = localName(node.name);
    if (path.length === 0 && name !== 'Document')
      throw new StatementError(parser.line, 'not a camt.053 file: the root element is not Document');
    if (path.length >= MAX_XML_DEPTH)
      throw new StatementError(parser.line, `elements nest more than ${MAX_XML_DEPTH} deep`);
    path.push(name);
    text = '';
    const at = path.join('/');
    if (at === 'Document/BkToCstmrStmt') sawStatement = true;
    if (at === 'Document/BkToCstmrStmt/Stmt') statement = { account: '', currency: null, from: '', to: '' };
    if (at === 'Document/BkToCstmrStmt/Stmt/Ntry') entry = newEntry(parser.line);
    if (entry && at === 'Document/BkToCstmrStmt/Stmt/Ntry/Amt') {
      const currency = Object.entries(node.attributes).find(([key]) => localName(key) === 'Ccy')?.[1];
      entry.currency = typeof currency === 'string' ? currency.trim().toUpperCase() : '';
    }
  });
  // Text and CDATA sections add up: several sections, each short, are still one element's text.
  const addText = (chunk: string) => {
    if (text.length + chunk.length > MAX_XML_TEXT) throw new StatementError(parser.line, tooLongText);
    text += chunk;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  const run = { length: 0 };
  parser.on('closetag', () => {
    const at = path.join('/');
    const value = text.trim();
    text = '';
    if (statement) readStatementField(statement, at.replace('Document/BkToCstmrStmt/Stmt/', ''), value);
    if (entry) readEntryField(entry, at.replace('Document/BkToCstmrStmt/Stmt/Ntry/', ''), value);
    if (at === 'Document/BkToCstmrStmt/Stmt/Ntry' && entry && statement) {
      if (entry.status === '' || entry.status === 'BOOK') ready.push(toLine(entry, statement));
      entry = null;
    }
    if (at === 'Document/BkToCstmrStmt/Stmt' && statement) {
      if (statement.from || statement.to) ready.push(toPeriod(statement, parser.line));
      statement = null;
    }
    path.pop();
  });

  try {
    for await (const chunk of input) {
      writeBounded(parser, typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), run);
      yield* ready.splice(0);
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    if (err instanceof StatementError) throw err;
    if (err instanceof TypeError) throw new StatementError(parser.line, 'the file is not UTF-8 text');
    // saxes reports "file:line:column: problem"; the position is ours to name.
    // A problem may quote a name from the file: only its start is repeated.
    const problem = (err as Error).message.replace(/^[^:]*:\d+:\d+: /, '').slice(0, 200);
    throw new StatementError(parser.line, `not well-formed XML (${problem}; is the file truncated?)`);
  }
  yield* ready.splice(0);
  if (!sawStatement) throw new StatementError(null, 'not a camt.053 file: no BkToCstmrStmt');
}

/**
 * Writes `text` to saxes, refusing a run of more than MAX_XML_TEXT characters with no `<`: saxes holds a text
 * node, a tag or a comment whole until it ends, so this bounds what it buffers. The run is written up to
 * where it passes the cap first, so the error names the line it is on.
 */
function writeBounded(parser: SaxesParser, text: string, run: { length: number }) {
  let start = 0;
  for (let at = text.indexOf('<'); ; at = text.indexOf('<', start)) {
    const end = at === -1 ? text.length : at;
    if (run.length + end - start > MAX_XML_TEXT) {
      parser.write(text.slice(0, start + MAX_XML_TEXT - run.length + 1));
      throw new StatementError(
        parser.line,
        `a text, tag or comment is longer than ${MAX_XML_TEXT / 1024} KB`,
      );
    }
    if (at === -1) break;
    run.length = 0;
    start = at + 1;
  }
  run.length += text.length - start;
  parser.write(text);
}

function newEntry(line: number): Entry {
  return {
    line,
    amount: '',
    currency: '',
    direction: '',
    status: '',
    valueDate: '',
    bookingDate: '',
    entryReference: '',
    servicerReference: '',
    endToEndId: '',
    transactionReference: '',
    information: [],
  };
}

function readStatementField(statement: Statement, at: string, value: string) {
  if (at === 'Acct/Id/IBAN' || at === 'Acct/Id/Othr/Id') statement.account = value;
  else if (at === 'Acct/Ccy') statement.currency = value.toUpperCase();
  else if (at === 'FrToDt/FrDtTm' || at === 'FrToDt/FrDt') statement.from = value;
  else if (at === 'FrToDt/ToDtTm' || at === 'FrToDt/ToDt') statement.to = value;
}

function readEntryField(entry: Entry, at: string, value: string) {
  if (at === 'Amt') entry.amount = value;
  else if (at === 'CdtDbtInd') entry.direction = value;
  else if (at === 'Sts' || at === 'Sts/Cd') entry.status = value;
  else if (at === 'ValDt/Dt' || at === 'ValDt/DtTm') entry.valueDate = value;
  else if (at === 'BookgDt/Dt' || at === 'BookgDt/DtTm') entry.bookingDate = value;
  else if (at === 'NtryRef') entry.entryReference = value;
  else if (at === 'AcctSvcrRef') entry.servicerReference = value;
  else if (at === 'NtryDtls/TxDtls/Refs/EndToEndId') entry.endToEndId ||= given(value);
  else if (at === 'NtryDtls/TxDtls/Refs/AcctSvcrRef' || at === 'NtryDtls/TxDtls/Refs/TxId')
    entry.transactionReference ||= given(value);
  else if (
    at === 'AddtlNtryInf' ||
    at === 'NtryDtls/TxDtls/RmtInf/Ustrd' ||
    at === 'NtryDtls/TxDtls/AddtlTxInf'
  )
    entry.information.push(value);
}

function toLine(entry: Entry, statement: Statement): StatementItem {
  const { line } = entry;
  const exponent = currencyExponent(entry.currency);
  if (exponent === null) throw new StatementError(line, 'the entry Amt has no known ISO 4217 currency (Ccy)');
  const magnitude = parseAmount(entry.amount, exponent);
  if (magnitude === null || magnitude < 0) throw new StatementError(line, 'the entry Amt is not an amount');
  if (entry.direction !== 'CRDT' && entry.direction !== 'DBIT')
    throw new StatementError(line, 'the entry CdtDbtInd is neither CRDT nor DBIT');
  const valueDate = isoDay(entry.valueDate || entry.bookingDate);
  if (valueDate === null)
    throw new StatementError(line, 'the entry has no value date (ValDt) or booking date');
  return {
    kind: 'line',
    line,
    bankAccount: statement.account,
    valueDate,
    amount: entry.direction === 'CRDT' ? magnitude : -magnitude,
    currency: entry.currency,
    description: entry.information.filter(Boolean).join(' '),
    reference:
      entry.endToEndId || entry.servicerReference || entry.transactionReference || entry.entryReference,
  };
}

function toPeriod(statement: Statement, line: number): StatementItem {
  const from = isoDay(statement.from);
  const to = isoDay(statement.to);
  if (from === null || to === null || to < from)
    throw new StatementError(line, 'the statement FrToDt is not a range of dates');
  return { kind: 'period', bankAccount: statement.account, currency: statement.currency, from, to };
}
