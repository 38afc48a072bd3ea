import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBankStatement } from '../../simulator/bankStatementFile.ts';
import type { StatementFormat } from '../../src/bank/statement.ts';
import { linesOf, read } from './readStatement.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'generated', 'bank');

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
