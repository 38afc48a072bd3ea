import { Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectSafeAnswer } from '../helpers/safeAnswer.ts';
import { seedPayouts } from './readSeed.ts';

let t: TestApp;
let server: Server;
let base: string;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

// One listening server for the whole file: supertest would otherwise bind a new port per request. Requests
// reuse kept-alive sockets: a connection for each of the thousands of requests cost about a seventh of the CPU.
const agent = new Agent({ keepAlive: true });
beforeAll(async () => {
  t = await startTestApp();
  await seedPayouts(t.pool);
  server = await serve(t.app, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  agent.destroy();
  await closeServer(server);
  await t.close();
});

// Paths are sent as written, so `%00` and `%ff` reach express raw.
const get = (path: string) => request(base).get(path).agent(agent).set(auth);
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
const percentByte = fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`);

describe('arbitrary input to the payout routes never reaches a 500', () => {
  it('arbitrary query strings for /api/payouts', async () => {
    const name = fc.constantFrom(
      ...'status account_id deposits_after deposits_before limit after_cursor before_cursor'.split(' '),
      'status[x]',
    );
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
      fc.array(percentByte, { maxLength: 20 }).map((bytes) => bytes.join('')),
      fc.constantFrom(
        '',
        '%',
        'paid',
        '2026-02-30',
        '2024-02-29',
        '0000-01-01',
        '9999-12-31T23:59:59Z',
        '-1',
      ),
      fc.date({ noInvalidDate: true }).map((date) => encodeURIComponent(date.toISOString())),
      fc.string({ unit: 'binary', maxLength: 300 }).map((key) => cursorOf(`key:${key}`)),
      fc.constantFrom('po_a1', 'po_esc', '').map((key) => cursorOf(`key:${key}`)),
    );
    const query = fc
      .array(fc.tuple(name, value), { maxLength: 6 })
      .map((pairs) => pairs.map((pair) => pair.join('=')).join('&'));
    await fc.assert(
      fc.asyncProperty(query, async (search) => {
        expectSafeAnswer(await get(`/api/payouts?${search}`));
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary path segments for /api/payouts/', async () => {
    const segment = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }),
      fc
        .array(fc.oneof(percentByte, fc.constantFrom('%', '%zz', 'po_', 'po_a1', '.csv')), {
          minLength: 1,
          maxLength: 40,
        })
        .map((parts) => parts.join('')),
      fc.string({ unit: 'grapheme-ascii', minLength: 200, maxLength: 600 }),
    );
    await fc.assert(
      fc.asyncProperty(segment, async (raw) => {
        expectSafeAnswer(await get(`/api/payouts/${raw}`));
      }),
      { numRuns: 300 },
    );
  });
});
