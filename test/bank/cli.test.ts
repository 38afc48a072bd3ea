import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { insertPayout } from './helpers.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'generated', 'bank');

let t: TestApp;
let dir: string;
const tally = (args: string[]) => runScript(['src/cli/main.ts', ...args], { DATABASE_URL: t.databaseUrl });
// The first case runs the real CLI; the others run the same dispatch in this process.
const tallyHere = (args: string[]) => tallyInProcess(args, { DATABASE_URL: t.databaseUrl });
const storedLines = async () =>
  (await t.pool.query<{ count: number }>('select count(*)::int as count from bank_lines')).rows[0]?.count;

beforeAll(async () => {
  t = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'tally-bank-'));
});
afterAll(async () => {
  await t.close();
});

describe('tally bank import', () => {
  it('imports a file whose format its extension names, matches it, and prints a summary line', async () => {
    await insertPayout(t.pool, { id: 'po_fixture_1', amount: 123456, deposits_at: '2026-03-02T09:00:00Z' });
    const result = await tally(['bank', 'import', path.join(FIXTURES, 'statement.bai2')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^statement \d+: 3 lines, 2 credits, 0 duplicates, 1 matched\n$/);
  });

  it('adds nothing the second time, and says so', async () => {
    const result = await tallyHere(['bank', 'import', path.join(FIXTURES, 'statement.bai2')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /3 lines, 2 credits, 3 duplicates, 1 matched \(this file was imported before/,
    );
    expect(await storedLines()).toBe(3);
  });

  it('takes --format for a file whose extension says nothing', async () => {
    const file = path.join(dir, 'export.txt');
    await copyFile(path.join(FIXTURES, 'statement.camt053.xml'), file);
    expect((await tallyHere(['bank', 'import', file])).stderr).toContain(
      'cannot tell the format from the file name',
    );
    const result = await tallyHere(['bank', 'import', file, '--format', 'camt053']);
    expect(result.code).toBe(0);
    // The camt.053 fixture is the BAI2 one's account and lines: the same bank lines, whatever the format.
    expect(result.stdout).toMatch(/3 lines, 2 credits, 3 duplicates, 1 matched\n$/);
  });

  it('exits non-zero naming the line of a bad file, and stores nothing of it', async () => {
    const file = path.join(dir, 'bad.csv');
    await writeFile(
      file,
      'Date,Amount,Currency,Description,Reference\n2026-04-01,1.00,USD,a,b\n2026-04-02,x,USD,a,c\n',
    );
    const before = await storedLines();
    const result = await tallyHere(['bank', 'import', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally bank: line 3: the amount is not an amount\n');
    expect(await storedLines()).toBe(before);
  });
});
