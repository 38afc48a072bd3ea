import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeChangeCursor, encodeChangeCursor } from '../../src/changes/changeCursor.ts';
import { tallyInProcess } from '../helpers/cliInProcess.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import { startReceiver, verifyDelivery } from '../subscriptions/helpers.ts';

const TOKEN = 'listen-read-token-0123456789';
const cursorOf = encodeChangeCursor;
const seqOf = (cursor: string) => decodeChangeCursor(cursor) ?? Number.NaN;

/**
 * A stand-in for a Tally's `GET /api/changes` (the feed's contract: `after`, `types`, `limit`, `wait`, the
 * envelope with `page_info.end_cursor`), so `tally listen` is tested against the HTTP it reads.
 */
function startFeed() {
  const changes: Record<string, unknown>[] = [];
  const requests: URLSearchParams[] = [];
  const waiting = new Set<() => void>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://feed');
    if (url.pathname !== '/api/changes') return res.writeHead(404).end();
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":{"code":"not_authenticated","message":"missing or invalid bearer token"}}');
    requests.push(url.searchParams);
    const after = url.searchParams.has('after') ? seqOf(url.searchParams.get('after') as string) : 0;
    const types = url.searchParams.get('types')?.split(',') ?? [];
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const select = () =>
      changes
        .filter(
          (change) =>
            (change.seq as number) > after &&
            (types.length === 0 ||
              types.some(
                (type) => type === change.type || type === `${String(change.type).split('.')[0]}.*`,
              )),
        )
        .slice(0, limit);
    let page = select();
    const wait = Number(url.searchParams.get('wait') ?? 0);
    if (page.length === 0 && wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait * 1000);
        waiting.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      page = select();
    }
    const last = page.at(-1);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: null,
        type: 'array',
        data: page,
        page_info: {
          has_previous: false,
          has_next: false,
          start_cursor: null,
          end_cursor: last ? cursorOf(last.seq as number) : (url.searchParams.get('after') ?? null),
        },
      }),
    );
  });
  const append = (type: string, object_id: string, object_version: number) => {
    const seq = changes.length + 1;
    changes.push({
      id: `chg_${seq}`,
      seq,
      type,
      object: type.split('.')[0],
      object_id,
      object_version,
      account_id: 'acc_1',
      account_type: 'test',
      occurred_at: new Date().toISOString(),
      recorded_at: new Date().toISOString(),
      event_ids: [],
      data: { id: object_id },
    });
    for (const wake of waiting) wake();
    waiting.clear();
  };
  return { server, append, requests, changes };
}

let feed: ReturnType<typeof startFeed>;
let feedUrl: string;
beforeAll(async () => {
  feed = startFeed();
  feed.server.listen(0, '127.0.0.1');
  await once(feed.server, 'listening');
  feedUrl = `http://127.0.0.1:${(feed.server.address() as AddressInfo).port}`;
});
afterAll(() => {
  feed.server.closeAllConnections();
  feed.server.close();
});

// The first case starts the real CLI (and stops it with SIGINT); the others run the same dispatch in this process.
const tally = (args: string[]) =>
  tallyInProcess(['listen', ...args], { DATABASE_URL: undefined, API_TOKEN: undefined });

describe('tally listen', () => {
  it('forwards the changes made from now on, of its types, signed with the secret it prints, until stopped', async () => {
    feed.append('payment.created', 'py_old', 1);
    const receiver = await startReceiver();
    // A setting of the server that would stop a command reading the configuration: listen reads none.
    const child = spawn(
      process.execPath,
      [
        'src/cli/main.ts',
        'listen',
        '--url',
        feedUrl,
        '--token',
        TOKEN,
        '--forward-to',
        receiver.url,
        '--types',
        'payment.*,refund.created',
      ],
      { env: { PATH: process.env.PATH, PORT: 'not a port' } },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    try {
      await waitFor('listen to wait for changes', () =>
        until(stdout.includes('Waiting for changes'), stdout + stderr),
      );
      const secret = /Signing secret[^:]*: (whsec_\S+)/.exec(stdout)?.[1] as string;
      expect(secret).toMatch(/^whsec_/);
      feed.append('payment.updated', 'py_new', 1);
      feed.append('dispute.created', 'dp_1', 1);
      feed.append('refund.created', 're_1', 1);
      feed.append('payment.updated', 'py_new', 2);
      await waitFor('three deliveries', () =>
        until(receiver.received.length >= 3, String(receiver.received.length)),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changes = receiver.received.map((delivery) => JSON.parse(delivery.body));
      expect(changes.map((change) => `${change.id} ${change.type}`)).toEqual([
        'chg_2 payment.updated',
        'chg_4 refund.created',
        'chg_5 payment.updated',
      ]);
      for (const delivery of receiver.received) {
        expect(verifyDelivery(secret, delivery)).toEqual(JSON.parse(delivery.body));
        expect(delivery.headers['webhook-id']).toBe(JSON.parse(delivery.body).id);
      }
      expect(feed.requests.every((query) => query.get('types') === 'payment.*,refund.created')).toBe(true);
      await waitFor('the progress lines', () => until(stdout.includes('chg_5'), stdout));
      expect(stdout).toMatch(/chg_2 {2}payment\.updated {2}py_new v1 {2}→ 200 \(\d+ ms\)/);
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(stdout).toContain(`Stopped after 3 change(s). Resume with --from ${cursorOf(5)}`);
    } finally {
      child.kill('SIGKILL');
      await receiver.close();
    }
  });

  it('starts from a cursor with --from, and reports a refused token', async () => {
    const receiver = await startReceiver();
    try {
      const refused = await tally([
        '--url',
        feedUrl,
        '--token',
        'wrong-token-0123456789',
        '--forward-to',
        receiver.url,
        '--from',
        cursorOf(1),
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('tally listen: 401 missing or invalid bearer token');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a missing or bad flag with a clear error and exit 2, each', async () => {
    const cases: [string[], string][] = [
      [[], '--url is required'],
      [
        ['--url', 'ftp://x', '--token', 't', '--forward-to', 'http://localhost:1/'],
        '--url must be an http or https URL',
      ],
      [['--url', 'http://x', '--token', 't'], '--forward-to is required'],
      [['--url', 'http://x', '--forward-to', 'http://localhost:1/'], '--token is required'],
      [
        [
          '--url',
          'http://x',
          '--token',
          't',
          '--forward-to',
          'http://localhost:1/',
          '--types',
          'payment.exploded',
        ],
        '--types: unknown change type payment.exploded',
      ],
      [
        ['--url', 'http://x', '--token', 't', '--forward-to', 'http://localhost:1/', '--from', ''],
        '--from must be now or a cursor',
      ],
      [
        ['--url', 'http://x', '--token', 't', '--forward-to', 'http://localhost:1/', '--colour'],
        "Unknown option '--colour'",
      ],
    ];
    for (const [args, message] of cases) {
      const result = await tally(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`tally listen: ${message}`);
    }
  });
});
