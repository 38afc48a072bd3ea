import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { settle } from '../helpers/fixtures.ts';

// `tally close` against a real database, as a user runs it. The rules need a completed sweep and payout sync
// after the month's end: their run records are inserted as those jobs write them (the jobs themselves run
// against the simulator in test/close/closing.test.ts).
let t: TestApp;
let dir: string;
// Two months back (UTC): ended more than 24 h ago whatever today is.
const start = new Date();
start.setUTCDate(1);
start.setUTCMonth(start.getUTCMonth() - 2);
const PERIOD = start.toISOString().slice(0, 7);
// The real CLI, as a user runs it: its exit codes and streams are the contract.
const tally = (args: string[]) =>
  runScript(['src/cli/main.ts', 'close', ...args], { DATABASE_URL: t.databaseUrl });
// The same dispatch in this process, for the cases past the first few, which start the real CLI.
const tallyHere = (args: string[]) => tallyInProcess(['close', ...args], { DATABASE_URL: t.databaseUrl });

beforeAll(async () => {
  t = await startTestApp({ worker: true });
  dir = await mkdtemp(path.join(tmpdir(), 'tally-close-'));
  const at = `${PERIOD}-10T15:00:00.000Z`;
  const payment = {
    id: 'py_cli_close',
    account_id: 'acc_cli',
    amount: 10_000,
    currency: 'usd',
    status: 'succeeded',
    capture_strategy: 'automatic',
    fee_amount: 300,
    fees: [
      {
        id: 'pyfee_cli_close',
        type: 'processing_fee',
        amount: 300,
        remaining_amount: 300,
        currency: 'usd',
        source_configuration_id: null,
        source_fee_type: null,
      },
    ],
    created_at: at,
    updated_at: at,
  };
  const event = paymentEvent({
    account_id: 'acc_cli',
    account_type: 'live',
    event_name: 'payment.succeeded',
    data: payment,
  });
  expect((await postSigned(t.app, event)).status).toBe(200);
  await settle(t);
  await t.pool.query(
    `insert into sweep_runs (account_id, kind, status, started_at, finished_at)
       values ('acc_cli', 'sweep', 'completed', now(), now())`,
  );
  await t.pool.query(
    `insert into payout_sync_accounts (account_id, synced_at, newest_payout_created_at) values ('acc_cli', now(), null)`,
  );
}, 60_000);
afterAll(() => t.close());

describe('tally close', () => {
  it('prints the close report of an open period, saying it is open', async () => {
    const result = await tally([PERIOD]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${PERIOD} is open`);
    expect(JSON.parse(result.stdout).accounts[0]).toMatchObject({
      account_id: 'acc_cli',
      walk: { net: 9_700, held_end: 9_700 },
    });
  });

  it('writes the journal in a format to a file', async () => {
    const file = path.join(dir, 'journal.csv');
    const result = await tallyHere([PERIOD, '--journal', 'xero', '--out', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`written to ${file}`);
    const rows = parse(await readFile(file, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.find((row) => row['*AccountCode'] === 'sales')?.['*Amount']).toBe('-100.00');
  });

  it('refuses bad input naming it', async () => {
    const format = await tally([PERIOD, '--journal', 'sage']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--journal must be one of csv, xero, quickbooks, netsuite, got "sage"');
    const period = await tallyHere(['2026-13']);
    expect(period.code).toBe(2);
    expect(period.stderr).toContain('period: must be a month as YYYY-MM, got "2026-13"');
  });

  // Each case: the API's query, the CLI's options for the same request, and the words both refuse it with (the
  // CLI names its option where the API names its parameter, and says the value it was given).
  it.each([
    ['format=csv&currency=usdx', ['--journal', 'csv', '--currency', 'usdx'], 400, '--currency'],
    ['format=xero&part=10001', ['--journal', 'xero', '--part', '10001'], 400, '--part'],
    ['format=xero&part=0', ['--journal', 'xero', '--part', '0'], 400, '--part'],
    ['format=xero&part=2', ['--journal', 'xero', '--part', '2'], 400, null],
    ['format=quickbooks&currency=eur', ['--journal', 'quickbooks', '--currency', 'eur'], 422, null],
  ])('refuses %s as the API does, in the same words', async (query, flags, status, option) => {
    const answer = await request(t.app)
      .get(`/api/periods/${PERIOD}/journal?${query}`)
      .set({ Authorization: `Bearer ${API_TOKEN}` });
    expect(answer.status).toBe(status);
    const message: string = answer.body.error.message;
    const result = await tallyHere([PERIOD, ...flags]);
    expect(result.code, result.stdout.slice(0, 200)).toBe(2);
    if (option === null) expect(result.stderr).toContain(message);
    else {
      const [parameter, problem] = message.split(/: (.*)/s) as [string, string];
      expect(`--${parameter.replace('_', '-')}`).toBe(option);
      expect(result.stderr).toContain(`${option} ${problem}, got "${flags.at(-1)}"`);
    }
  });

  it('closes the period once, then prints the stored version unchanged', async () => {
    const closed = await tally([PERIOD, '--close', '--note', 'reviewed']);
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stderr).toMatch(new RegExp(`closed ${PERIOD} as version 1 by cli:`));
    const twice = await tallyHere([PERIOD, '--close', '--note', 'again']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`${PERIOD} is already closed (version 1)`);
    const shown = await tallyHere([PERIOD]);
    expect(shown.stderr).toContain(`${PERIOD} is closed: version 1`);
    const stored = await request(t.app)
      .get(`/api/periods/${PERIOD}.json`)
      .set({ Authorization: `Bearer ${API_TOKEN}` });
    expect(shown.stdout).toBe(`${stored.text}\n`);
    const { rows } = await t.pool.query('select actor, note from period_history');
    expect(rows).toEqual([{ actor: expect.stringMatching(/^cli:/), note: 'reviewed' }]);
  });
});

describe('tally close --changes-since', () => {
  const admin = { Authorization: `Bearer ${API_TOKEN}` };

  it('refuses a version the month is not closed after, or one that is not a version, naming it', async () => {
    const same = await tallyHere([PERIOD, '--journal', 'csv', '--changes-since', '1']);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(
      `changes_since: ${PERIOD} is closed at version 1, not at a version later than 1`,
    );
    const bad = await tallyHere([PERIOD, '--journal', 'csv', '--changes-since', 'one']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--changes-since must be a version number (1, 2, …), got "one"');
  });

  it('writes the changes of the next version, recording each export of a closed month', async () => {
    expect((await tallyHere([PERIOD, '--journal', 'netsuite'])).code).toBe(0);
    const reopened = await request(t.app)
      .post(`/api/periods/${PERIOD}/reopen`)
      .set(admin)
      .send({ note: 'again' });
    expect(reopened.status).toBe(200);
    expect((await tallyHere([PERIOD, '--close'])).code).toBe(0);
    const changes = await tallyHere([PERIOD, '--journal', 'csv', '--changes-since', '1']);
    expect(changes.code, changes.stderr).toBe(0);
    // Nothing moved between the versions: the changes journal is its header alone.
    expect(changes.stdout).toBe('entry,date,account,debit,credit,currency,memo,reference\n');
    const { rows } = await t.pool.query(
      'select version, format, changes_since, actor from period_journal_exports order by id',
    );
    expect(rows).toEqual([
      { version: 1, format: 'netsuite', changes_since: null, actor: expect.stringMatching(/^cli:/) },
      { version: 2, format: 'csv', changes_since: 1, actor: expect.stringMatching(/^cli:/) },
    ]);
  });
});
