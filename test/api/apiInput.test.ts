import { Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../src/api/errors.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectSafeAnswer, INTERNALS } from '../helpers/safeAnswer.ts';

let t: TestApp;
let server: Server;
let base: string;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

// One listening server for the whole file: supertest would otherwise bind a new port per request. Requests
// reuse kept-alive sockets: a connection for each of the thousands of requests cost about a seventh of the CPU.
const agent = new Agent({ keepAlive: true });
beforeAll(async () => {
  t = await startTestApp();
  server = await serve(t.app, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  agent.destroy();
  await closeServer(server);
  await t.close();
});

// Paths are sent as written: supertest leaves `%` sequences alone, so `%00` and `%ff` reach express raw.
const get = (path: string) => request(base).get(path).agent(agent).set(auth);
const post = (path: string) => request(base).post(path).agent(agent).set(auth);
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

type Response = request.Response;
function expectClientError(response: Response, status: number | number[], code?: string, param?: string) {
  expect([status].flat()).toContain(response.status);
  expect(response.body.error.code).toEqual(code ?? expect.any(String));
  if (param) expect(response.body.error.message).toMatch(new RegExp(`^${param}: `));
  expect(response.text).not.toMatch(INTERNALS);
}

describe('path parameters', () => {
  it('a NUL byte in a payment id is 400 naming id', async () => {
    expectClientError(await get('/api/payments/%00'), 400, 'invalid_parameter', 'id');
  });

  it('a payment id over 255 characters is 400 naming id, and 255 is a plain unknown id', async () => {
    expectClientError(await get(`/api/payments/py_${'x'.repeat(253)}`), 400, 'invalid_parameter', 'id');
    expectClientError(await get(`/api/payments/py_${'x'.repeat(252)}`), 404, 'resource_not_found');
  });

  it.each(['%ff%fe', '%E0%A4%A', '%', '%ED%A0%80'])(
    'malformed percent-encoding %s in an event id is 400 naming id',
    async (raw) => {
      expectClientError(await get(`/api/events/${raw}`), 400, 'invalid_parameter', 'id');
    },
  );

  it('a control character in an event id is 400 naming id, and the value is not echoed', async () => {
    const response = await get('/api/events/evt_SECRET%07VALUE');
    expectClientError(response, 400, 'invalid_parameter', 'id');
    expect(response.text).not.toContain('SECRET');
  });

  it.each([
    'rpt_99999999999999999999.csv',
    'rpt_9223372036854775807',
    'rpt_9007199254740992',
    'rpt_0',
    'rpt_007',
    'rpt_%00',
  ])('report id %s is 404 naming id', async (id) => {
    expectClientError(await get(`/api/reports/${id}`), 404, 'resource_not_found', 'id');
  });

  it('a report id with malformed percent-encoding is 400 naming id', async () => {
    expectClientError(await get('/api/reports/rpt_%ff.csv'), 400, 'invalid_parameter', 'id');
  });

  it('a route without its own handler still answers malformed percent-encoding with 400, not 500', async () => {
    const bare = express();
    bare.get('/things/:id', (_req, res) => {
      res.json({});
    });
    bare.use(errorHandler(t.log));
    expectClientError(await request(bare).get('/things/%ff'), 400, 'invalid_parameter', 'path');
  });

  it('a NUL job name is 404, and a malformed one is 400 naming name', async () => {
    expectClientError(await post('/api/jobs/%00'), 404, 'job_not_found');
    expectClientError(await post('/api/jobs/%ff'), 400, 'invalid_parameter', 'name');
  });
});

describe('query strings', () => {
  it.each([
    ['/api/findings?status=open&status=resolved', 'status'],
    ['/api/alerts?kind[x]=y', 'kind'],
    ['/api/findings?limit=1&limit=2', 'limit'],
  ])('a repeated or bracketed parameter, %s, is 400 naming %s', async (path, param) => {
    expectClientError(await get(path), 400, 'invalid_parameter', param);
  });

  it.each([
    ['/api/findings?subject_id=%00', 'subject_id'],
    ['/api/findings?code=SECRET%00VALUE', 'code'],
    ['/api/findings?status=closed', 'status'],
    [`/api/findings?code=${'c'.repeat(256)}`, 'code'],
    ['/api/alerts?status=archived', 'status'],
    ['/api/alerts?kind=%0a', 'kind'],
    ['/api/ach-returns?account_id=acc%00', 'account_id'],
    ['/api/ach-returns?category=%1b', 'category'],
    ['/api/ach-returns?late=yes', 'late'],
    ['/api/reports?period=2026-02-30', 'period'],
    ['/api/reports?period=0000-01-01', 'period'],
    ['/api/reports?period=2026-1-1', 'period'],
    ['/api/reports?kind=weekly', 'kind'],
    ['/api/findings?code=%ff%fe', 'code'],
    ['/api/ach-returns?account_id=%E0%A4%A', 'account_id'],
    ['/api/disputes?status=%ED%A0%80', 'status'],
    ['/api/disputes?account_id=%00', 'account_id'],
    ['/api/alerts?kind=%', 'kind'],
  ])('%s is 400 naming %s, without echoing the value', async (path, param) => {
    const response = await get(path);
    expectClientError(response, 400, 'invalid_parameter', param);
    expect(response.text).not.toContain('SECRET');
  });

  it.each([
    ['garbage', 'after_cursor'],
    [cursorOf('id:99999999999999999999'), 'after_cursor'],
    [cursorOf('id:9007199254740992'), 'before_cursor'],
    [cursorOf('id:007'), 'after_cursor'],
    [`${cursorOf('id:7')}!`, 'before_cursor'],
  ])('cursor %s is 400 invalid_cursor naming %s', async (cursor, param) => {
    const response = await get(`/api/findings?${param}=${encodeURIComponent(cursor)}`);
    expectClientError(response, 400, 'invalid_cursor', param);
  });

  it('keeps accepting what was valid: our cursors, empty filters, and any limit (falling back to 25)', async () => {
    for (const path of [
      `/api/findings?after_cursor=${cursorOf('id:7')}&limit=100`,
      `/api/alerts?before_cursor=${cursorOf(`id:${Number.MAX_SAFE_INTEGER}`)}`,
      '/api/findings?code=&status=&subject_id=&limit=abc',
      '/api/ach-returns?late=false&code=R01&limit=0',
      '/api/reports?kind=daily&period=2024-02-29&limit=-1',
      '/api/findings?unknown=%00',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.body.type).toBe('array');
    }
  });
});

describe('job bodies', () => {
  it.each([
    ['[1]', 'body'],
    ['"x"', undefined],
    ['{"date":"2026-13-01"}', 'date'],
    ['{"date":', undefined],
    ['{"date":1e400}', 'date'],
  ])('daily-report with body %s is 4xx', async (body, param) => {
    const response = await post('/api/jobs/daily-report').set('content-type', 'application/json').send(body);
    expectClientError(response, [400, 422], undefined, param);
  });

  it('a NUL or control character in a payload string is 422 naming the field', async () => {
    for (const body of [
      '{"account_id":"acc\\u0000"}',
      '{"account_id":"\\ud800"}',
      '{"account_id":"a\\nb"}',
    ]) {
      const response = await post('/api/jobs/fee-configuration-sync')
        .set('content-type', 'application/json')
        .send(body);
      expectClientError(response, 422, 'payload_invalid', 'account_id');
    }
  });
});

// Raw path segments: unicode, percent-encoded random bytes, lone `%`, and long runs.
const percentByte = fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`);
const segment = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }),
  fc
    .array(fc.oneof(percentByte, fc.constantFrom('%', '%0', '%zz', 'evt_', 'rpt_', '.csv')), {
      minLength: 1,
      maxLength: 60,
    })
    .map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme-ascii', minLength: 200, maxLength: 3000 }),
  fc
    .bigInt({ min: 0n, max: 10n ** 30n })
    .map((n) => `rpt_${n}${['', '.json', '.csv', '.html'][Number(n % 4n)]}`),
);

describe('arbitrary input never reaches a 500', () => {
  it('arbitrary path segments for payments, events, reports and jobs', async () => {
    const route = fc.constantFrom(
      ...['GET /api/payments/', 'GET /api/events/', 'GET /api/reports/', 'POST /api/jobs/'],
    );
    await fc.assert(
      fc.asyncProperty(route, segment, async (target, raw) => {
        const [method, prefix] = target.split(' ') as [string, string];
        const path = `${prefix}${raw}`;
        expectSafeAnswer(await (method === 'GET' ? get(path) : post(path)));
      }),
      { numRuns: 1000 },
    );
  });

  const names =
    'code status subject_id kind late category account_id period limit after_cursor before_cursor';
  const name = fc.constantFrom(...names.split(' '), 'status[x]', 'x');
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
    fc.array(percentByte, { maxLength: 20 }).map((bytes) => bytes.join('')),
    fc.constantFrom('', '%', '%00', 'open', 'true', 'daily', '2026-02-30', '2024-02-29', '-1', '1e400'),
    fc.bigInt({ min: 0n, max: 10n ** 25n }).map((n) => cursorOf(`id:${n}`)),
    fc.string({ unit: 'grapheme-ascii', minLength: 250, maxLength: 600 }).map(encodeURIComponent),
  );
  const query = fc
    .array(fc.tuple(name, value), { maxLength: 6 })
    .map((pairs) => pairs.map((pair) => pair.join('=')).join('&'));

  it('arbitrary query strings for findings, alerts, ach-returns, reports and disputes', async () => {
    const route = fc.constantFrom(
      '/api/findings',
      '/api/alerts',
      '/api/ach-returns',
      '/api/reports',
      '/api/disputes',
    );
    await fc.assert(
      fc.asyncProperty(route, query, async (path, search) => {
        expectSafeAnswer(await get(`${path}?${search}`));
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary JSON bodies for a scheduled job', async () => {
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((json) => JSON.stringify(json) ?? 'null'),
      fc.string({ unit: 'binary', maxLength: 40 }).map((text) => JSON.stringify({ account_id: text })),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const response = await post('/api/jobs/fee-configuration-sync')
          .set('content-type', 'application/json')
          .send(raw);
        expectSafeAnswer(response);
      }),
      { numRuns: 300 },
    );
  });
});
