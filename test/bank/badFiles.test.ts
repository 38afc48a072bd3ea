import { describe, expect, it } from 'vitest';
import { failure } from './readStatement.ts';

describe('files that are not what they claim', () => {
  it.each([
    [
      'csv',
      'Date,Amount,Currency,Details\n2026-01-01,1,USD,x\n',
      'line 1: the header has no reference (Reference) column',
    ],
    [
      'csv',
      'Date,Currency,Details,Ref,Credit\n',
      'line 1: the header has no amount (Amount, or Credit and Debit) column',
    ],
    [
      'csv',
      'Date,Amount,Currency,Details,Ref\n2026-01-01,1.00,USD,a,b\n2026-01-02,12.3.4,USD,a,b\n',
      'line 3: the amount is not an amount',
    ],
    [
      'csv',
      'Date,Amount,Currency,Details,Ref\n2026-01-01,1.00,XXX,a,b\n',
      'line 2: the currency is not a known ISO 4217 code',
    ],
    [
      'csv',
      'Date,Amount,Currency,Details,Ref\n2026-02-30,1.00,USD,a,b\n',
      'line 2: the date is not a date (YYYY-MM-DD or MM/DD/YYYY)',
    ],
    [
      'csv',
      'Date,Amount,Currency,Details,Ref\n2026-01-01,"1.00,USD,a,b\n',
      'line 2: a quoted field is not closed (is the file truncated?)',
    ],
    ['csv', '', 'the file is empty: a CSV statement starts with a header'],
    [
      'camt053',
      '<Document><BkToCstmrStmt><Stmt>\n<Ntry><Amt Ccy="USD">1.00</Amt>',
      'line 2: not well-formed XML',
    ],
    ['camt053', 'Date,Amount\n', 'line 1: not well-formed XML'],
    ['camt053', '<Other/>', 'line 1: not a camt.053 file: the root element is not Document'],
    [
      'camt053',
      '<Document><BkToCstmrStmt><Stmt>\n<Ntry><Amt Ccy="ZZZ">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry></Stmt></BkToCstmrStmt></Document>',
      'line 2: the entry Amt has no known ISO 4217 currency (Ccy)',
    ],
    [
      'camt053',
      '<Document><BkToCstmrStmt><Stmt>\n<Ntry><Amt Ccy="USD">1,00x</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry></Stmt></BkToCstmrStmt></Document>',
      'line 2: the entry Amt is not an amount',
    ],
    ['bai2', '<Document/>', 'line 1: not a BAI2 file: it does not start with 01'],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,/\n16,165,12.30,0,R,,x\n',
      'line 4: the amount is not an amount in cents',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,/\n16,165,1230,0,R,,x\n',
      'the file ends before its trailer (99): is it truncated?',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,XYZ,010,0,,/\n',
      'line 3: the currency is not a known ISO 4217 code',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,/\n16,165,1230,0,R,,x\n49,1231,3/\n',
      'line 5: the account control total does not match its records (edited or truncated?)',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,D,-2.5/\n',
      'line 3: the distribution count of funds type D is not a whole number',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,/\n16,165,1230,D,3,1,100,R,,x\n',
      'line 4: the distribution count of funds type D is more than the record holds',
    ],
    [
      'bai2',
      '01,A,B,260301,0000,1,,,2/\n02,B,A,1,260301,0000,,2/\n03,1,USD,010,0,,/\n49,0,+2/\n',
      'line 4: the account trailer number of records is not a whole number',
    ],
    ['bai2', `01,A,B,260301,0000,1,,,2/\n${'9'.repeat(70_000)}\n`, 'line 2: the line is longer than 64 KB'],
    [
      'csv',
      `Date,Amount,Currency,Details,Ref\n2026-01-01,1.00,USD,${' '.repeat(70_000)}x,b\n`,
      'line 2: the line is longer than 64 KB',
    ],
    [
      'camt053',
      `<Document><BkToCstmrStmt>\n${'<Stmt>'.repeat(70)}`,
      'line 2: elements nest more than 64 deep',
    ],
    [
      'camt053',
      `<Document><BkToCstmrStmt>\n<Stmt foo="${'a'.repeat(70_000)}">`,
      'line 2: a text, tag or comment is longer than 64 KB',
    ],
  ] as const)('%s %j → %s', async (format, text, message) => {
    expect(await failure(format, text)).toContain(message);
  });
});
