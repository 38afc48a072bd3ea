import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BANK_ENV, clearBank, postStatement } from '../bank/helpers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

// Hostile statement files sent through the API while a provider keeps delivering webhooks to the same
// process: each file is refused (422, naming its line and field) or imported, fast, and no webhook waits.
const ACKNOWLEDGED_WITHIN_MS = 5_000;
// Far under the 60 s parse budget: these files hit a cap early, or are linear and small.
const ANSWERED_WITHIN_MS = 15_000;

let t: TestApp;
let uploads: string;
beforeAll(async () => {
  uploads = await mkdtemp(path.join(tmpdir(), 'tally-uploads-'));
  t = await startTestApp({ env: { ...BANK_ENV, UPLOAD_DIR: uploads } });
});
afterAll(async () => {
  await t?.close();
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

/** Signed deliveries, one after another, until `until` settles; each one's status and time to answer. */
async function deliverWebhooksDuring(app: Express, until: Promise<unknown>) {
  let busy = true;
  void Promise.resolve(until).finally(() => {
    busy = false;
  });
  const answers: { status: number; ms: number }[] = [];
  do {
    const started = performance.now();
    const response = await postSigned(app, paymentEvent());
    answers.push({ status: response.status, ms: performance.now() - started });
    await sleep(25);
  } while (busy);
  return answers;
}

const bai2 = (...records: string[]) => `${records.join('\n')}\n`;
const BAI2_HEADER = ['01,SENDER,TALLY,260301,0000,1,,,2/', '02,TALLY,SENDER,1,260301,0000,USD,2/'];
const CSV_HEADER = 'Date,Amount,Currency,Description,Reference\n';
const camt = (inside: string) =>
  `<Document>\n<BkToCstmrStmt>\n<Stmt>\n${inside}\n</Stmt>\n</BkToCstmrStmt>\n</Document>\n`;
const paddedAmounts = (after: string) =>
  CSV_HEADER +
  Array.from(
    { length: 20 },
    (_, at) => `2026-03-02,"12.30${' '.repeat(60_000)}${after}",USD,x,R${at}\n`,
  ).join('');

describe('hostile statement files, while webhooks arrive', () => {
  it.each([
    [
      'bai2',
      'a distribution count of -2.5',
      bai2(...BAI2_HEADER, '03,123456789,USD,010,0,,D,-2.5/', '49,0,2/', '98,0,1,4/', '99,0,1,6/'),
      'line 3: the distribution count of funds type D is not a whole number',
    ],
    [
      'bai2',
      'a distribution count larger than the record',
      bai2(...BAI2_HEADER, '03,123456789,USD,010,0,,D,999999999/', '49,0,2/', '98,0,1,4/', '99,0,1,6/'),
      'line 3: the distribution count of funds type D is more than the record holds',
    ],
    [
      'bai2',
      'a trailer count that is not a whole number',
      bai2(...BAI2_HEADER, '03,123456789,USD,010,0,,/', '49,0,2/', '98,0,1e0,4/', '99,0,1,6/'),
      'line 5: the group trailer number of accounts is not a whole number',
    ],
    [
      'bai2',
      'a line of a million spaces',
      bai2(...BAI2_HEADER, '03,123456789,USD,010,0,,/', `16,165,1230,0,R,,${' '.repeat(1_000_000)}x`),
      'line 4: the line is longer than 64 KB',
    ],
    [
      'bai2',
      'a record continued (88) past 64 KB',
      bai2(
        ...BAI2_HEADER,
        '03,123456789,USD,010,0,,/',
        '16,165,1230,0,R,,x',
        ...Array(2_000).fill(`88,${'y'.repeat(60)}`),
      ),
      'line 4: the record with its continuations (88) is longer than 64 KB',
    ],
    [
      'camt053',
      'elements nested 100,000 deep',
      camt(`${'<Ntry>'.repeat(100_000)}${'</Ntry>'.repeat(100_000)}`),
      'line 4: elements nest more than 64 deep',
    ],
    [
      'camt053',
      'a text node of 10 MB',
      camt(`<Ntry>\n<AddtlNtryInf>${'x'.repeat(10_000_000)}</AddtlNtryInf></Ntry>`),
      'line 5: a text, tag or comment is longer than 64 KB',
    ],
    [
      'camt053',
      'an element text of many short CDATA sections',
      camt(`<Ntry>\n<AddtlNtryInf>${'<![CDATA[xxxxxxxx]]>'.repeat(10_000)}</AddtlNtryInf></Ntry>`),
      'line 5: the text of an element is longer than 64 KB',
    ],
    [
      'csv',
      'amounts padded with 60,000 spaces before a letter',
      paddedAmounts('x'),
      'line 2: the amount is not an amount',
    ],
    [
      'csv',
      'a line of 100 KB',
      `${CSV_HEADER}2026-03-02,12.30,USD,${'d'.repeat(100_000)},R1\n`,
      'line 2: the line is longer than 64 KB',
    ],
  ] as const)(
    '%s with %s is refused with 422 naming the line and field',
    async (format, _what, body, message) => {
      const started = performance.now();
      const answer = postStatement(t, format, body).then((response) => ({
        response,
        ms: performance.now() - started,
      }));
      const webhooks = await deliverWebhooksDuring(t.app, answer);
      const { response, ms } = await answer;
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ error: { code: 'statement_invalid', message } });
      expect(ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect(webhooks.every((webhook) => webhook.status === 200)).toBe(true);
      expect(Math.max(...webhooks.map((webhook) => webhook.ms))).toBeLessThan(ACKNOWLEDGED_WITHIN_MS);
      expect((await request(t.app).get('/readyz')).status).toBe(200);
      expect(await stored()).toEqual({ statements: 0, lines: 0 });
      expect(await readdir(uploads)).toEqual([]);
    },
  );

  it('a CSV whose amounts are padded with 60,000 spaces is imported, in its 20 lines', async () => {
    const answer = postStatement(t, 'csv', paddedAmounts(''));
    const webhooks = await deliverWebhooksDuring(t.app, answer);
    const response = await answer;
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ lines: 20, credits: 20, duplicates: 0 });
    expect(Math.max(...webhooks.map((webhook) => webhook.ms))).toBeLessThan(ACKNOWLEDGED_WITHIN_MS);
    expect(await stored()).toEqual({ statements: 1, lines: 20 });
  });
});

describe('the time budget of reading a statement', () => {
  it('a big valid file read past a tiny budget is refused with 422 saying so, and nothing is stored', async () => {
    const tight = await startTestApp({
      databaseUrl: t.databaseUrl,
      env: BANK_ENV,
      statementLimits: { parseBudgetMs: 5 },
    });
    try {
      const lines = Array.from(
        { length: 40_000 },
        (_, at) =>
          `2026-03-${String(1 + (at % 28)).padStart(2, '0')},${(at % 500) + 1}.25,USD,Transfer ${at},T${at}\n`,
      );
      const file = CSV_HEADER + lines.join('');
      const refused = await postStatement(tight, 'csv', file);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toEqual({
        code: 'statement_invalid',
        message:
          'reading the file took longer than 0.005 s, the most one statement may take: split it into smaller files',
      });
      expect(await stored()).toEqual({ statements: 0, lines: 0 });
      // The same file within the standard budget: it was valid, and the terminated reader left nothing behind.
      const imported = await postStatement(t, 'csv', file);
      expect(imported.status).toBe(201);
      expect(imported.body.data).toMatchObject({ lines: 40_000 });
    } finally {
      await tight.close();
    }
  });
});
