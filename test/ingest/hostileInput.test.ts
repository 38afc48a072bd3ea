import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { sign } from '../../src/ingest/signature.ts';
import { SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, unixSeconds } from '../helpers/deliveries.ts';

let t: TestApp;
let server: Server;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  server = await serve(t.app, 0, { headersMs: 1_000, requestMs: 2_000, checkEveryMs: 250 });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  agent.destroy();
  await closeServer(server);
  await t.close();
});

const countEvents = async () =>
  (await t.pool.query('select count(*)::int as n from events')).rows[0].n as number;

// A plain Node client on kept-alive sockets: fetch's own per-request work cost more CPU than the server's
// side of the 10,500 requests this file sends.
const agent = new Agent({ keepAlive: true });

function post(body: Uint8Array | string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = httpRequest(`${base}/webhooks`, { method: 'POST', headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

// Bodies an attacker might send: random bytes, invalid UTF-8, deep nesting, huge numbers, unicode
// tricks and prototype-pollution keys.
const hostileBody = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }),
  fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value) ?? 'null'),
  fc.string({ unit: 'binary', maxLength: 512 }),
  fc.integer({ min: 50, max: 5000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.constantFrom(
    '1e999999',
    '-0',
    '{"id":1e400}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '\u202e{"id":"evt"}',
    '\ufeff{}',
    '{"a":"\\ud800"}',
  ),
);
const hostileHeader = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.stringMatching(/^[0-9a-f]{64}$/),
  fc.constant(''),
);

describe('hostile input', () => {
  it('10,000 unsigned or badly signed requests get only 400, 401 or 413, and nothing is stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBody,
        hostileHeader,
        hostileHeader,
        fc.boolean(),
        async (body, timestamp, signature, withHeaders) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          // Header values must be sendable at all: fetch itself refuses control characters.
          const safe = (value: string) => value.replace(/[^\x20-\x7e]/g, '');
          if (withHeaders) {
            headers['justifi-timestamp'] = safe(timestamp);
            headers['justifi-signature'] = safe(signature);
          }
          const { status, text } = await post(typeof body === 'string' ? body : body, headers);
          expect([400, 401, 413]).toContain(status);
          expect(text).not.toMatch(/stack|at .*\.ts|select |insert /i);
        },
      ),
      { numRuns: 10_000 },
    );
    expect(await countEvents()).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 300_000);

  it('signed hostile bodies are quarantined or refused as not JSON, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBody, async (body) => {
        const timestamp = unixSeconds();
        const raw = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
        const { status } = await post(raw, {
          'content-type': 'application/json',
          'justifi-timestamp': timestamp,
          'justifi-signature': sign(SECRETS[0], timestamp, raw),
        });
        expect([200, 400]).toContain(status);
      }),
      { numRuns: 500 },
    );
    const stored = await t.pool.query(
      `select count(*) filter (where status <> 'quarantined')::int as valid from events`,
    );
    expect(stored.rows[0].valid).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it('an oversized body gets 413 whatever it claims', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 0x61);
    expect((await post(big, { 'content-type': 'application/json' })).status).toBe(413);
    const signedBig = JSON.stringify(paymentEvent({ padding: 'x'.repeat(1024 * 1024) }));
    const timestamp = unixSeconds();
    const response = await post(signedBig, {
      'justifi-timestamp': timestamp,
      'justifi-signature': sign(SECRETS[0], timestamp, signedBig),
    });
    expect(response.status).toBe(413);
  });

  it('slow clients that never finish their headers or body are cut off and do not starve others', async () => {
    const port = (server.address() as AddressInfo).port;
    const slow = Array.from({ length: 100 }, (_, index) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      // Read what the server answers (a 408), or the socket never reports its close.
      socket.resume();
      // Half of them stall in the headers, half in a body they announced but never send.
      socket.write(
        index % 2 === 0
          ? 'POST /webhooks HTTP/1.1\r\nHost: x\r\n'
          : 'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{',
      );
      return new Promise<number>((resolve) => {
        const opened = Date.now();
        socket.on('close', () => resolve(Date.now() - opened));
      });
    });
    const started = Date.now();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    const lifetimes = await Promise.all(slow);
    expect(Math.max(...lifetimes)).toBeLessThan(5_000);
  }, 20_000);
});
