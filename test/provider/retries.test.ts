import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeServer, serve } from '../../src/api/serve.ts';
import { createLogger } from '../../src/logger.ts';
import { createProviderClient, ProviderError } from '../../src/provider/client.ts';
import { RETRY_AFTER_CAP_MS } from '../../src/provider/retryPolicy.ts';

// Which failures the provider client tries again, against a provider that answers each request as told.
const NOW = Date.parse('2026-11-20T10:00:00Z');
const PATH = '/v1/sub_accounts/acc_1/fee_configurations/processing_ecomm';

let server: Server;
let base: string;
/** `METHOD path` of every request that reached the provider, the token request included. */
let received: string[];
/** How the next requests to PATH are answered, in order; then 200. */
let answers: ((req: Request, res: Response) => void)[];
let sleeps: number[];

beforeAll(async () => {
  const app = express();
  app.post('/oauth/token', (_req, res) => {
    received.push('POST /oauth/token');
    res.json({ access_token: 'token-1', token_type: 'Bearer' });
  });
  app.all(PATH, (req, res) => {
    received.push(`${req.method} ${req.path}`);
    const answer = answers.shift();
    if (answer) answer(req, res);
    else res.json({ id: 'sfc_1', type: 'standard_fee_configuration', data: {}, page_info: null });
  });
  server = await serve(app, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));
beforeEach(() => {
  received = [];
  answers = [];
  sleeps = [];
});

const client = (baseUrl = base) =>
  createProviderClient({
    baseUrl,
    clientId: 'client_1',
    clientSecret: 'secret_1',
    log: createLogger('silent'),
    maxAttempts: 4,
    baseDelayMs: 10,
    now: () => NOW,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });

const refuse = (status: number, headers: Record<string, string> = {}, code = 'some_error') => {
  return (_req: Request, res: Response) => {
    res
      .status(status)
      .set(headers)
      .json({ error: { code, message: 'refused' } });
  };
};
// The request arrived whole; the connection then dies without an answer.
const dropConnection = (req: Request) => req.socket.destroy();
const posts = () => received.filter((entry) => entry === `POST ${PATH}`).length;

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('a POST that may have reached the provider', () => {
  it.each([
    ['a 503', refuse(503)],
    ['a 500', refuse(500, {}, 'internal_server_error')],
    ['a 504 gateway_timeout_error', refuse(504, {}, 'gateway_timeout_error')],
    ['a connection lost after sending', dropConnection],
  ])('is not sent again after %s', async (_name, answer) => {
    answers = [answer];
    const error = await failure(client().post(PATH, { variable_rate: 2.9 }));
    expect(error.message).toContain('after 1 attempt(s)');
    expect(posts()).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('is sent again after a 429, waiting what Retry-After asks', async () => {
    answers = [refuse(429, { 'retry-after': '2' }, 'gateway_rate_limit_error')];
    const envelope = await client().post(PATH, { variable_rate: 2.9 });
    expect(envelope.id).toBe('sfc_1');
    expect(posts()).toBe(2);
    expect(sleeps).toEqual([2_000]);
  });

  it('is tried again when the connection is refused: nothing was sent', async () => {
    const closed = await serve(express(), 0);
    const port = (closed.address() as AddressInfo).port;
    await closeServer(closed);
    const error = await failure(client(`http://127.0.0.1:${port}`).post(PATH, {}));
    expect(error.message).toMatch(/after 4 attempt\(s\): network error/);
    expect(sleeps).toHaveLength(3);
  });
});

describe('the token request and GETs', () => {
  it('the token request is repeated after a 5xx: it creates nothing', async () => {
    answers = [refuse(503)];
    await client().get(PATH);
    expect(received).toEqual(['POST /oauth/token', `GET ${PATH}`, `GET ${PATH}`]);
  });

  it('a GET is repeated after a connection lost mid-request', async () => {
    answers = [dropConnection];
    await client().get(PATH);
    expect(received.filter((entry) => entry === `GET ${PATH}`)).toHaveLength(2);
  });
});

describe('Retry-After', () => {
  it.each([
    ['seconds', '7', 7_000],
    ['an HTTP date', new Date(NOW + 5_000).toUTCString(), 5_000],
    ['a date already past', new Date(NOW - 5_000).toUTCString(), 0],
    ['more than the cap', '3600', RETRY_AFTER_CAP_MS],
  ])('given in %s (%s) is waited: %i ms', async (_name, header, wait) => {
    answers = [refuse(429, { 'retry-after': header })];
    await client().get(PATH);
    expect(sleeps).toEqual([wait]);
  });

  it('that cannot be read leaves the exponential back-off', async () => {
    answers = [refuse(429, { 'retry-after': 'soon' })];
    await client().get(PATH);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThanOrEqual(10);
  });
});
