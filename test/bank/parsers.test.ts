import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/bank/amounts.ts';
import { parseStatement } from '../../src/bank/parseStatement.ts';
import type { StatementFormat, StatementItem } from '../../src/bank/statement.ts';
import { renderBankStatement } from '../../src/dev/simulator/bankStatementFile.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'generated', 'bank');

// Split into small chunks, so every parser is seen reading across chunk boundaries.
async function read(format: StatementFormat, text: string | Buffer, chunkSize = 7): Promise<StatementItem[]> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
  const items: StatementItem[] = [];
  for await (const item of parseStatement(format, Readable.from(chunks))) items.push(item);
  return items;
}
const linesOf = (items: StatementItem[]) =>
  items.flatMap((item) => (item.kind === 'line' ? [{ ...item, line: undefined }] : []));
const failure = (format: StatementFormat, text: string) =>
  read(format, text).then(
    () => 'parsed',
    (err: Error) => err.message,
  );

describe('amounts as a bank writes them', () => {
  it.each([
    ['12.30', 1230],
    ['-12.3', -1230],
    ['1,234.56', 123456],
    ['(12.30)', -1230],
    ['12.30-', -1230],
    ['+5', 500],
    ['.5', 50],
    ['0.00', 0],
    ['12.300', 1230],
  ])('reads %s as %i cents', (text, cents) => {
    expect(parseAmount(text, 2)).toBe(cents);
  });

  it.each(['', 'abc', '12.345', '1,23.00', '--5', '(-5)', '1.2.3', '12,30'])('refuses %j', (text) => {
    expect(parseAmount(text, 2)).toBeNull();
  });

  it('reads back any amount written plain, with thousands commas, signed or in parentheses', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        const magnitude = Math.abs(cents);
        const whole = Math.trunc(magnitude / 100);
        const fraction = String(magnitude % 100).padStart(2, '0');
        const grouped = whole.toLocaleString('en-US');
        const negative = cents < 0;
        expect(parseAmount(`${negative ? '-' : ''}${whole}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(`${negative ? '-' : ''}${grouped}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(negative ? `(${grouped}.${fraction})` : `${grouped}.${fraction}`, 2)).toBe(cents);
        expect(parseAmount(`${whole}.${fraction}`, 2)).toBe(magnitude);
      }),
    );
  });

  it('never turns text into a different amount: whatever it accepts writes back the same', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[-+(]?[\d,.]{0,12}[)-]?$/), (text) => {
        const cents = parseAmount(text, 2);
        if (cents === null) return;
        const digits = text.replace(/[^\d.]/g, '');
        const [whole = '', fraction = ''] = digits.split('.');
        expect(Math.abs(cents)).toBe(
          Number(whole || '0') * 100 + Number(fraction.padEnd(2, '0').slice(0, 2)),
        );
      }),
    );
  });
});

describe.each([
  ['csv', 'statement.csv', ''],
  ['camt053', 'statement.camt053.xml', '000987654321'],
  ['bai2', 'statement.bai2', '000987654321'],
] as const)('the %s fixture', (format, file, bankAccount) => {
  it('reads the two credits and the debit, in cents, with their value dates', async () => {
    const items = await read(format, await readFile(path.join(FIXTURES, file)));
    expect(
      linesOf(items).map(({ valueDate, amount, currency }) => ({ valueDate, amount, currency })),
    ).toEqual([
      { valueDate: '2026-03-02', amount: 123456, currency: 'USD' },
      { valueDate: '2026-03-02', amount: -1230, currency: 'USD' },
      { valueDate: '2026-03-03', amount: 5000, currency: 'USD' },
    ]);
    const [payout] = linesOf(items);
    expect(payout?.bankAccount).toBe(bankAccount);
    expect(`${payout?.reference} ${payout?.description}`).toContain('po_fixture_1');
    expect(payout?.reference).toMatch(/^(ACH-0001)$/);
  });
});

describe('statement periods', () => {
  it('camt.053 states its FrToDt; BAI2 each group as-of day; CSV none', async () => {
    const periods = async (format: StatementFormat, file: string) =>
      (await read(format, await readFile(path.join(FIXTURES, file)))).filter(
        (item) => item.kind === 'period',
      );
    expect(await periods('camt053', 'statement.camt053.xml')).toEqual([
      { kind: 'period', bankAccount: '000987654321', currency: 'USD', from: '2026-03-01', to: '2026-03-04' },
    ]);
    expect(
      (await periods('bai2', 'statement.bai2')).map((period) => period.kind === 'period' && period.from),
    ).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    expect(await periods('csv', 'statement.csv')).toEqual([]);
  });
});

describe('camt.053 details', () => {
  it('reads prefixed elements, several statements of their own accounts, and the entry reference it has', async () => {
    const entry = (amount: string, direction: string, reference: string) =>
      `<c:Ntry><c:Amt Ccy="CAD">${amount}</c:Amt><c:CdtDbtInd>${direction}</c:CdtDbtInd><c:Sts><c:Cd>BOOK</c:Cd></c:Sts>` +
      `<c:BookgDt><c:Dt>2026-04-01</c:Dt></c:BookgDt>${reference}</c:Ntry>`;
    const file = `<?xml version="1.0"?>
<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><c:BkToCstmrStmt>
<c:Stmt><c:Acct><c:Id><c:IBAN>CA00TEST1</c:IBAN></c:Id></c:Acct>
${entry('1,000.00', 'CRDT', '<c:NtryRef>N1</c:NtryRef>')}
</c:Stmt>
<c:Stmt><c:Acct><c:Id><c:Othr><c:Id>TEST2</c:Id></c:Othr></c:Id></c:Acct>
${entry('0.05', 'DBIT', '<c:NtryDtls><c:TxDtls><c:Refs><c:TxId>T2</c:TxId></c:Refs></c:TxDtls></c:NtryDtls>')}
</c:Stmt></c:BkToCstmrStmt></c:Document>`;
    expect(linesOf(await read('camt053', file))).toEqual([
      {
        kind: 'line',
        line: undefined,
        bankAccount: 'CA00TEST1',
        valueDate: '2026-04-01',
        amount: 100000,
        currency: 'CAD',
        description: '',
        reference: 'N1',
      },
      {
        kind: 'line',
        line: undefined,
        bankAccount: 'TEST2',
        valueDate: '2026-04-01',
        amount: -5,
        currency: 'CAD',
        description: '',
        reference: 'T2',
      },
    ]);
  });
});

describe('BAI2 details', () => {
  it('reads funds types V (a value date) and S, a final `/`, and skips codes that move no money', async () => {
    const file = [
      '01,A,B,260301,0000,1,,,2/',
      '02,B,A,1,260301,0000,,2/',
      '03,1,USD,010,0,,/',
      '16,165,1000,V,260303,,R1,/',
      '16,475,250,S,100,100,50,R2,C2,Check 123/',
      '16,890,0,,R3,,information only',
      '49,1250,5/',
      '98,1250,1,7/',
      '99,1250,1,9/',
    ].join('\r\n');
    expect(linesOf(await read('bai2', file))).toEqual([
      {
        kind: 'line',
        line: undefined,
        bankAccount: '1',
        valueDate: '2026-03-03',
        amount: 1000,
        currency: 'USD',
        description: '',
        reference: 'R1',
      },
      {
        kind: 'line',
        line: undefined,
        bankAccount: '1',
        valueDate: '2026-03-01',
        amount: -250,
        currency: 'USD',
        description: 'C2 Check 123',
        reference: 'R2',
      },
    ]);
  });
});

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
  ] as const)('%s %j → %s', async (format, text, message) => {
    expect(await failure(format, text)).toContain(message);
  });
});

describe('the simulator statement', () => {
  const deposits = [
    { id: 'po_a', amount: 123456, currency: 'usd', deposits_at: '2026-03-02T10:00:00Z' },
    { id: 'po_b', amount: 500, currency: 'cad', deposits_at: '2026-03-03T10:00:00Z' },
    { id: 'po_c', amount: 700, currency: 'usd', deposits_at: '2026-03-03T18:00:00Z' },
  ];

  it.each(['csv', 'camt053', 'bai2'] as const)(
    'reads back in %s: dropped lines gone, altered ones a cent up',
    async (format) => {
      const text = renderBankStatement(format, deposits, {
        drop: ['po_c'],
        alter: ['po_b'],
        bankAccount: 'ACC-1',
      });
      const lines = linesOf(await read(format, text, 64));
      expect(
        lines.map(({ valueDate, amount, currency, reference }) => ({
          valueDate,
          amount,
          currency,
          reference,
        })),
      ).toEqual([
        { valueDate: '2026-03-02', amount: 123456, currency: 'USD', reference: 'po_a' },
        { valueDate: '2026-03-03', amount: 501, currency: 'CAD', reference: 'po_b' },
      ]);
      expect(lines.every((line) => line.description === `JUSTIFI PAYOUT ${line.reference}`)).toBe(true);
      expect(lines.every((line) => line.bankAccount === (format === 'csv' ? '' : 'ACC-1'))).toBe(true);
    },
  );

  it('states the dates it covers, so a dropped payout is visibly missing', async () => {
    const text = renderBankStatement('bai2', deposits, {
      drop: ['po_c'],
      covers: { from: '2026-03-01', to: '2026-03-06' },
    });
    const periods = (await read('bai2', text, 64)).filter((item) => item.kind === 'period');
    expect(periods).toHaveLength(6 * 2);
    expect(new Set(periods.map((period) => period.kind === 'period' && period.currency))).toEqual(
      new Set(['CAD', 'USD']),
    );
  });
});
