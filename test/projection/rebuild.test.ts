import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passesLuhn, redactCardNumbersInText } from '../../src/domain/cardNumbers.ts';
import { PROJECTION_TABLES } from '../../src/projection/eventQueries.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, fixtureBodies, fixtureNames, settle } from '../helpers/fixtures.ts';
import { dumpProjections } from '../helpers/projections.ts';

// A deterministic shuffle, so a failure can be reproduced.
function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let index = copy.length - 1; index > 0; index--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

const PANS = ['4111 1111 1111 1111', '5555-5555-5555-4444', '378282246310005'];

// Deliveries that carry card numbers where a careless integration might put them.
function corpusWithCardNumbers(): string[] {
  return [
    JSON.stringify(
      paymentEvent({
        data: {
          id: 'py_pan_1',
          amount: 5000,
          currency: 'usd',
          status: 'succeeded',
          description: `card ${PANS[0]}`,
          metadata: { note: PANS[1], raw: 378282246310005 },
          payment_method: { card: { id: 'pm_pan', brand: 'visa', acct_last_four: '1111', number: PANS[0] } },
          updated_at: '2026-11-02T10:00:00Z',
        },
      }),
    ),
    JSON.stringify(
      paymentEvent({
        event_name: 'forwarding_request.completed',
        data: {
          id: 'fwd_pan_1',
          status: 'completed',
          payment_method_id: 'pm_pan',
          url: 'https://vault.example.com/x',
          request: { body: { number: PANS[2] } },
          response: { id: 'fwdr_x', status_code: 200, body: { echoed: PANS[0] }, response_time_ms: 12 },
          updated_at: '2026-11-02T10:00:00Z',
        },
      }),
    ),
  ];
}

function findPans(text: string): string[] {
  return (text.match(/\d(?:[ -]?\d){12,18}/g) ?? []).filter((run) => passesLuhn(run.replace(/[ -]/g, '')));
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ worker: true });
  const bodies = [...fixtureNames().flatMap(fixtureBodies), ...corpusWithCardNumbers()];
  await deliver(t.app, shuffled(bodies, 7));
  await settle(t);
});
afterAll(() => t.close());

describe('tally reprocess --all', () => {
  it('rebuilds the projections from the raw log exactly as they were', async () => {
    const before = await dumpProjections(t.pool, { withRowIds: true });
    expect(before.payments?.length).toBeGreaterThan(3);
    // Run asynchronously: the worker of this app goes on committing what it started, as a deployed one does,
    // rather than hold a transaction open (and the rebuild waiting on it) while this process is blocked.
    const result = await runScript(['src/cli/main.ts', 'reprocess', '--all'], {
      DATABASE_URL: t.databaseUrl,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^reprocessed \d+ deliveries, 0 failed\n$/);
    expect(result.code).toBe(0);
    expect(await dumpProjections(t.pool, { withRowIds: true })).toEqual(before);
  });

  it('refuses to run without saying what to reprocess', () => {
    const result = spawnSync(process.execPath, ['src/cli/main.ts', 'reprocess'], {
      env: { ...process.env, DATABASE_URL: t.databaseUrl },
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('give exactly one of --all or --failed');
  });
});

describe('card numbers', () => {
  it('are in no projection row and no log line, only in the raw delivery evidence', async () => {
    for (const table of PROJECTION_TABLES) {
      const { rows } = await t.pool.query(`select t::text as row from ${table} t`);
      const found = rows.flatMap((row) => findPans(row.row));
      expect({ table, found }).toEqual({ table, found: [] });
    }
    const stored = await t.pool.query(`select snapshot from payments where id = 'py_pan_1'`);
    expect(stored.rows[0].snapshot.metadata).toEqual({ note: '****4444', raw: '****0005' });
    // Whatever a handler logs goes through the same redaction: messages, fields and errors.
    t.log.info({ card: PANS[0], nested: { list: [PANS[1]] } }, `card ${PANS[2]}`);
    t.log.error(new Error(`gateway echoed ${PANS[0]}`), 'call failed');
    t.log.warn({ err: new Error(`inner ${PANS[1]}`) }, 'wrapped');
    // pino's own millisecond `time` can pass Luhn; it is not data, so it is left out of the scan.
    const logged = t.logLines.map((line) => JSON.stringify({ ...JSON.parse(line), time: undefined }));
    expect(logged.length).toBeGreaterThan(0);
    // Logs hold random job ids, so they are checked by the redactor's own definition of a card number.
    expect(logged.filter((line) => redactCardNumbersInText(line) !== line)).toEqual([]);
    expect(logged.join('\n')).toContain('gateway echoed ****1111');
    const raw = await t.pool.query(
      `select count(*)::int as n from events where convert_from(raw_body, 'utf8') like '%4111 1111%'`,
    );
    expect(raw.rows[0].n).toBe(2);
  });
});
