import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { resolveDatabaseUrl } from '../../src/cli/database.ts';
import { recordedDeliverySchema } from '../../src/ingest/recorded.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runScript } from '../helpers/childProcess.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

/** The real CLI, as a user runs it. `undefined` unsets an inherited variable. */
const tally = (args: string[], env: Record<string, string | undefined> = {}) =>
  runScript(['src/cli/main.ts', ...args], env);
// Each command's first case here runs the real CLI; the others run the same dispatch in this process
// (tallyInProcess).

let source: TestApp;
let target: TestApp;
let targetServer: Server;
let targetUrl: string;
let dir: string;
const sent = [paymentEvent(), paymentEvent({ event_name: 'payment.refunded' }), paymentEvent()];

beforeAll(async () => {
  source = await startTestApp();
  target = await startTestApp({ env: { WEBHOOK_SECRETS: 'whsec_target_instance_0123456789ab' } });
  targetServer = await serve(target.app, 0);
  targetUrl = `http://127.0.0.1:${(targetServer.address() as AddressInfo).port}/webhooks`;
  dir = await mkdtemp(path.join(tmpdir(), 'tally-cli-'));
  for (const event of sent) expect((await postSigned(source.app, event)).status).toBe(200);
});
afterAll(async () => {
  await closeServer(targetServer);
  await Promise.all([source.close(), target.close()]);
});

describe('tally export', () => {
  it('writes every stored delivery as recorded-deliveries JSONL, raw bodies exact', async () => {
    const file = path.join(dir, 'export.jsonl');
    const result = await tally(['export', '--out', file], { DATABASE_URL: source.databaseUrl });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('exported 3 deliveries');
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => recordedDeliverySchema.parse(line).body)).toEqual(
      sent.map((e) => JSON.stringify(e)),
    );
  });

  it('refuses an unreadable --since', async () => {
    const result = await tallyInProcess(['export', '--since', 'last week'], {
      DATABASE_URL: source.databaseUrl,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--since must be an ISO date');
  });
});

describe('tally replay', () => {
  it('re-signs and posts each delivery, then reports duplicates when run again', async () => {
    const file = path.join(dir, 'replay.jsonl');
    await tallyInProcess(['export', '--out', file], { DATABASE_URL: source.databaseUrl });
    const args = [
      'replay',
      file,
      '--url',
      targetUrl,
      '--secret',
      'whsec_target_instance_0123456789ab',
      '--resign',
    ];
    const first = await tally(args);
    expect(first.stdout).toBe('sent 3, accepted 3, duplicate 0, rejected 0, failed 0\n');
    expect(first.code).toBe(0);
    const second = await tallyInProcess(args);
    expect(second.stdout).toBe('sent 3, accepted 0, duplicate 3, rejected 0, failed 0\n');
    const stored = await target.pool.query('select raw_body from events');
    const bodies = stored.rows.map((row) => row.raw_body.toString()).sort();
    expect(bodies).toEqual(sent.map((e) => JSON.stringify(e)).sort());
  });

  it('without --resign sends the recorded signatures, which another instance rejects, and exits 1', async () => {
    const file = path.join(dir, 'replay.jsonl');
    const result = await tallyInProcess(['replay', file, '--url', targetUrl]);
    expect(result.stdout).toBe('sent 3, accepted 0, duplicate 0, rejected 3, failed 0\n');
    expect(result.code).toBe(1);
  });

  it('explains a malformed file by line number', async () => {
    const result = await tallyInProcess(['replay', 'package.json', '--url', targetUrl]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/package\.json:1: not a recorded delivery/);
  });
});

describe('tally help', () => {
  it('answers like --help: the usage of every command, exit 0, even with no configuration', async () => {
    const asked = await tally(['--help'], { DATABASE_URL: undefined });
    const help = await tally(['help'], { DATABASE_URL: undefined });
    expect(asked.code).toBe(0);
    expect(asked.stderr).toMatch(/^usage:\n {2}tally backfill /);
    expect(help).toEqual(asked);
  });

  it('an unknown command still exits 2 after the usage', async () => {
    const result = await tally(['helpme']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^unknown command "helpme"\nusage:\n/);
  });
});

describe('the CLI configuration', () => {
  it("is the processes' schema, parsed before the command runs: every problem is listed, exit 2", async () => {
    const result = await tallyInProcess(['export'], {
      DATABASE_URL: source.databaseUrl,
      LOG_LEVEL: 'loud',
      PORT: 'x',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^tally export: invalid configuration:\n {2}- PORT: .*\n {2}- LOG_LEVEL: /);
    expect(result.stdout).toBe('');
  });

  it('needs no WEBHOOK_SECRETS: the CLI receives no webhook', async () => {
    const result = await tallyInProcess(['export'], {
      DATABASE_URL: source.databaseUrl,
      WEBHOOK_SECRETS: undefined,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(sent.length);
  });

  it('writes a report to REPORTS_DIR as well when it is set', async () => {
    const reportsDir = path.join(dir, 'reports');
    const out = path.join(dir, 'fee-configurations.json');
    const args = ['report', 'fee-configurations', '--out', out];
    const result = await tallyInProcess(args, { DATABASE_URL: source.databaseUrl, REPORTS_DIR: reportsDir });
    expect(result.code).toBe(0);
    const files = (await readdir(reportsDir)).map((file) => path.extname(file)).sort();
    expect(files).toEqual(['.csv', '.html', '.json']);
  });

  it('uses DATABASE_URL, else the embedded database of a running npm start, else says neither is there', async () => {
    const localFile = path.join(dir, 'database-url');
    await expect(resolveDatabaseUrl({ DATABASE_URL: 'postgres://a/b' }, localFile)).resolves.toBe(
      'postgres://a/b',
    );
    await expect(resolveDatabaseUrl({ DATABASE_URL: undefined }, localFile)).rejects.toThrow(
      /DATABASE_URL is not set and no local `npm start` is running/,
    );
    await writeFile(localFile, 'postgres://tally:tally@127.0.0.1:5999/postgres\n');
    await expect(resolveDatabaseUrl({ DATABASE_URL: undefined }, localFile)).resolves.toBe(
      'postgres://tally:tally@127.0.0.1:5999/postgres',
    );
    await expect(resolveDatabaseUrl({ DATABASE_URL: 'postgres://a/b' }, localFile)).resolves.toBe(
      'postgres://a/b',
    );
  });
});
