import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { BANK_ENV, clearBank, csvStatement, fixture, postStatement, READ_TOKEN } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: BANK_ENV });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await clearBank(t.pool);
});

const stored = async () => {
  const { rows } = await t.pool.query(
    `select (select count(*)::int from bank_statements) as statements, (select count(*)::int from bank_lines) as lines`,
  );
  return rows[0];
};

describe('POST /api/bank-statements', () => {
  it.each([
    ['csv', 'statement.csv', 'text/csv', '2026-03-02', '2026-03-03', ''],
    ['camt053', 'statement.camt053.xml', 'application/xml', '2026-03-01', '2026-03-04', '000987654321'],
    ['bai2', 'statement.bai2', 'application/octet-stream', '2026-03-01', '2026-03-04', '000987654321'],
  ])(
    'imports the %s fixture sent as %s, with the dates it covers',
    async (format, file, contentType, from, to, account) => {
      const response = await postStatement(t, format, await fixture(file), { contentType });
      expect(response.status).toBe(201);
      const id = response.body.data.id;
      expect(response.body).toEqual({
        id: String(id),
        type: 'bank_statement',
        data: { id, lines: 3, credits: 2, duplicates: 0, matched: 0 },
        page_info: null,
      });
      const { rows } = await t.pool.query(
        'select value_date::text, amount, currency from bank_lines order by id',
      );
      expect(rows).toEqual([
        { value_date: '2026-03-02', amount: 123456, currency: 'USD' },
        { value_date: '2026-03-02', amount: -1230, currency: 'USD' },
        { value_date: '2026-03-03', amount: 5000, currency: 'USD' },
      ]);
      const listed = await request(t.app)
        .get('/api/bank-statements')
        .set('authorization', `Bearer ${READ_TOKEN}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toMatchObject([
        {
          id,
          format,
          bank_account: account,
          covers_from: from,
          covers_to: to,
          currencies: ['USD'],
          lines: 3,
        },
      ]);
      expect(listed.body.data[0].imported_by).toBe('admin');
    },
  );

  it('adds nothing when the same file is sent again, and answers the earlier statement', async () => {
    const body = await fixture('statement.bai2');
    const first = await postStatement(t, 'bai2', body);
    const again = await postStatement(t, 'bai2', body);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({
      id: first.body.data.id,
      lines: 3,
      credits: 2,
      duplicates: 3,
      matched: 0,
    });
    expect(await stored()).toEqual({ statements: 1, lines: 3 });
  });

  it('adds only the new lines of an overlapping statement, identical lines of a day counted by rank', async () => {
    const march = (day: string) => `2026-03-0${day}`;
    const first = csvStatement([
      [march('1'), '10.00', 'Coffee', 'R1'],
      [march('1'), '10.00', 'Coffee', 'R1'],
      [march('2'), '20.00', 'Rent', 'R2'],
    ]);
    expect((await postStatement(t, 'csv', first)).body.data).toMatchObject({ lines: 3, duplicates: 0 });
    const overlapping = csvStatement([
      [march('1'), '10.00', 'Coffee', 'R1'],
      [march('1'), '10.00', 'Coffee', 'R1'],
      [march('1'), '10.00', 'Coffee', 'R1'],
      [march('2'), '20.00', 'Rent', 'R2'],
      [march('3'), '(5.00)', 'Fee', 'R3'],
    ]);
    const response = await postStatement(t, 'csv', overlapping);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ lines: 5, credits: 4, duplicates: 3 });
    expect(await stored()).toEqual({ statements: 2, lines: 5 });
  });

  it.each([
    [
      'csv',
      csvStatement([
        ['2026-03-01', '10.00', 'a', 'R1'],
        ['2026-03-02', '1O.00', 'b', 'R2'],
      ]),
      'line 3: the amount is not an amount',
    ],
    [
      'csv',
      'Date,Amount,Currency,Description\n2026-03-01,1.00,USD,a\n',
      'line 1: the header has no reference (Reference) column',
    ],
    [
      'csv',
      csvStatement([['2026-03-01', '10.00', 'a', 'R1']]).replace(',USD,', ',US$,'),
      'line 2: the currency is not a known ISO 4217 code',
    ],
    [
      'camt053',
      '<Document><BkToCstmrStmt><Stmt>\n<Ntry>\n<Amt Ccy="USD">1.00</Amt>',
      'line 3: not well-formed XML',
    ],
    ['bai2', 'Date,Amount\n', 'line 1: not a BAI2 file: it does not start with 01'],
    [
      'csv',
      csvStatement([['2026-03-01', '10.00', 'a\u0000b', 'R1']]),
      'line 2: the line contains a NUL character',
    ],
    ['csv', 'Date,Amount,Currency,Description,Reference\n', 'the statement has no lines and states no dates'],
  ])('refuses a bad %s file with 422 naming the line, and stores nothing', async (format, body, message) => {
    const response = await postStatement(t, format, body);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('statement_invalid');
    expect(response.body.error.message).toContain(message);
    expect(await stored()).toEqual({ statements: 0, lines: 0 });
  });

  it('stores nothing of a long file whose last line is bad: one transaction per file', async () => {
    const good = Array.from({ length: 12_000 }, (_, index): [string, string, string, string] => [
      '2026-03-01',
      `${index + 1}.00`,
      'Line',
      `R${index}`,
    ]);
    const body = `${csvStatement(good)}2026-03-02,"oops",USD,Bad,RX\n`;
    const response = await postStatement(t, 'csv', body);
    expect(response.status).toBe(422);
    expect(response.body.error.message).toBe('line 12002: the amount is not an amount');
    expect(await stored()).toEqual({ statements: 0, lines: 0 });
  });

  it('needs format: 400 naming it when missing or not one of the three', async () => {
    for (const format of [null, 'ofx']) {
      const response = await postStatement(t, format, 'x');
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain('format');
    }
  });

  it('refuses a read-only token with 403 and stores nothing', async () => {
    const response = await postStatement(t, 'csv', await fixture('statement.csv'), { token: READ_TOKEN });
    expect(response.status).toBe(403);
    expect(await stored()).toEqual({ statements: 0, lines: 0 });
  });

  it('lists statements newest first with cursor pagination', async () => {
    await postStatement(t, 'csv', await fixture('statement.csv'));
    await postStatement(t, 'bai2', await fixture('statement.bai2'));
    const auth = { authorization: `Bearer ${API_TOKEN}` };
    const first = await request(t.app).get('/api/bank-statements?limit=1').set(auth);
    expect(first.body.data.map((row: { format: string }) => row.format)).toEqual(['bai2']);
    expect(first.body.page_info.has_next).toBe(true);
    const next = await request(t.app)
      .get(`/api/bank-statements?limit=1&after_cursor=${first.body.page_info.end_cursor}`)
      .set(auth);
    expect(next.body.data.map((row: { format: string }) => row.format)).toEqual(['csv']);
    expect(next.body.page_info.has_next).toBe(false);
  });
});

describe('re-importing', () => {
  const line = fc.tuple(
    fc.integer({ min: 1, max: 3 }).map((day) => `2026-03-0${day}`),
    fc.integer({ min: -500, max: 500 }).map((cents) => (cents / 100).toFixed(2)),
    fc.constantFrom('JUSTIFI PAYOUT', 'Coffee', 'Rent'),
    fc.constantFrom('R1', 'R2', ''),
  );

  it('any part of an imported statement, in any order, adds nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(line, { minLength: 1, maxLength: 12 })
          .chain((lines) => fc.tuple(fc.constant(lines), fc.shuffledSubarray(lines, { minLength: 1 }))),
        async ([lines, part]) => {
          await clearBank(t.pool);
          const first = await postStatement(t, 'csv', csvStatement(lines));
          expect(first.body.data).toMatchObject({ lines: lines.length, duplicates: 0 });
          const again = await postStatement(t, 'csv', `${csvStatement(part)}\n`);
          expect(again.body.data).toMatchObject({ lines: part.length, duplicates: part.length });
          expect((await stored()).lines).toBe(lines.length);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('hostile files', () => {
  it.each([
    ['csv', 'statement.csv'],
    ['camt053', 'statement.camt053.xml'],
    ['bai2', 'statement.bai2'],
  ] as const)(
    'a %s fixture cut, spliced or replaced by random bytes is imported or refused with 422, never a 500',
    async (format, file) => {
      const original = await fixture(file);
      const damaged = fc.oneof(
        fc.nat({ max: original.length }).map((end) => original.subarray(0, end)),
        fc
          .tuple(fc.nat({ max: original.length }), fc.uint8Array({ minLength: 1, maxLength: 8 }))
          .map(([at, bytes]) =>
            Buffer.concat([original.subarray(0, at), bytes, original.subarray(at + bytes.length)]),
          ),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      );
      await fc.assert(
        fc.asyncProperty(damaged, async (body) => {
          const response = await postStatement(t, format, body);
          expect([200, 201, 422]).toContain(response.status);
          if (response.status === 422) expect(response.body.error.code).toBe('statement_invalid');
        }),
        { numRuns: 100 },
      );
    },
  );
});
