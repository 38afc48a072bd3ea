import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeServer, serve } from '../src/api/serve.ts';
import { createSimulator, type Simulator } from '../src/dev/simulator/server.ts';
import { createLogger } from '../src/logger.ts';
import { createProviderClient, type ProviderClientOptions, ProviderError } from '../src/provider/client.ts';

// The provider client against the simulator on a real port: token caching and refresh, retries with
// bounded exponential back-off, immediate failure on client errors, and cursor pagination.

const CLIENT_ID = 'test_client_pc';
const CLIENT_SECRET = 'test_secret_pc';
const ACCOUNT = 'acc_sub_pc';
const BASE_DELAY_MS = 10;
const MAX_ATTEMPTS = 4;
const CAP_MS = 30_000;
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const listPath = `/v1/sub_accounts/${ACCOUNT}/fee_configurations`;
const historyPath = `${listPath}/processing_ecomm/history`;
const TOKEN = 'POST /oauth/token';

let currentDate: Date;
let sim: Simulator;
let server: Server;
let baseUrl: string;
let sleeps: number[];
/** Full URLs (with query) as the server received them. */
let urls: string[];
/** When true, every /v1 request answers 401 whatever the token. */
let rejectAllBearers: boolean;
/** The next this-many /v1 requests get no answer at all. */
let hangNext: number;
let hung: Response[];
/** Called with each URL before the simulator sees the request. */
let beforeRequest: ((url: string) => void) | null;

function client(overrides: Partial<ProviderClientOptions> = {}) {
  return createProviderClient({
    baseUrl,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    log: createLogger('silent'),
    maxAttempts: MAX_ATTEMPTS,
    baseDelayMs: BASE_DELAY_MS,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
}
const count = (entry: string) => sim.requests.filter((r) => r === entry).length;
const gets = (path: string) => count(`GET ${path}`);

/** Catches the rejection so its fields can be inspected. */
async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected the call to fail');
}

/** The back-off delay bound of a retry after `attempt` (1-based): full jitter under an exponential cap. */
const bound = (attempt: number, base = BASE_DELAY_MS) => Math.min(CAP_MS, base * 2 ** (attempt - 1));

beforeEach(async () => {
  currentDate = new Date('2025-06-01T12:00:00.000Z');
  sim = createSimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => currentDate });
  sleeps = [];
  urls = [];
  rejectAllBearers = false;
  hangNext = 0;
  hung = [];
  beforeRequest = null;
  const outer = express();
  outer.use((req, res, next) => {
    urls.push(req.originalUrl);
    beforeRequest?.(req.originalUrl);
    if (req.path.startsWith('/v1') && hangNext > 0) {
      hangNext--;
      hung.push(res);
      return;
    }
    if (req.path.startsWith('/v1') && rejectAllBearers) {
      res.status(401).json({ error: { code: 'not_authenticated', message: 'rejected' } });
      return;
    }
    next();
  });
  outer.use(sim.app);
  server = await serve(outer, 0);
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  vi.restoreAllMocks();
  // A hung exchange would hold closeServer until the socket times out.
  if (hung.length > 0) server.closeAllConnections();
  await closeServer(server);
});

describe('the access token', () => {
  it('is fetched once and reused across calls', async () => {
    sim.store.create(ACCOUNT, 'processing_ecomm', { variable_rate: 2.9 });
    const provider = client();
    await provider.get(listPath);
    await provider.get(`${listPath}/processing_ecomm`);
    await provider.listAll(historyPath);
    expect(count(TOKEN)).toBe(1);
    expect(sim.requests).toHaveLength(4);
  });

  it('is renewed before its 24 hours run out, by the client’s own clock', async () => {
    let clientNow = Date.parse('2025-06-01T12:00:00.000Z');
    const provider = client({ now: () => clientNow });
    await provider.get(listPath);
    clientNow += 23 * HOUR;
    await provider.get(listPath);
    expect(count(TOKEN)).toBe(1);
    clientNow += HOUR;
    await provider.get(listPath);
    expect(count(TOKEN)).toBe(2);
    expect(sleeps).toEqual([]);
  });

  it('is refreshed once after a 401 from a revoked token, and the call then succeeds', async () => {
    const provider = client();
    await provider.get(listPath);
    sim.revokeTokens();
    const envelope = await provider.get(listPath);
    expect(envelope.type).toBe('array');
    expect(sim.requests).toEqual([TOKEN, `GET ${listPath}`, `GET ${listPath}`, TOKEN, `GET ${listPath}`]);
    expect(sleeps).toEqual([]);
  });

  it('refreshes once expired on the provider’s side, too', async () => {
    const provider = client();
    await provider.get(listPath);
    currentDate = new Date(currentDate.getTime() + 24 * HOUR);
    await provider.get(listPath);
    expect(count(TOKEN)).toBe(2);
  });

  it('fails with a 401 ProviderError at once, without looping, when the secret is wrong', async () => {
    const error = await failure(client({ clientSecret: 'wrong' }).get(listPath));
    expect(error.status).toBe(401);
    expect(error.code).toBe('not_authenticated');
    expect(sim.requests).toEqual([TOKEN]);
    expect(sleeps).toEqual([]);
  });

  it('gives up with 401 when the API refuses the refreshed token as well', async () => {
    rejectAllBearers = true;
    const error = await failure(client().get(listPath));
    expect(error.status).toBe(401);
    expect(error.code).toBe('not_authenticated');
    expect(count(TOKEN)).toBe(2);
    expect(urls.filter((url) => url === listPath)).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });
});

describe('retries', () => {
  it('succeeds after two 503s, with two back-off sleeps within the exponential bound', async () => {
    const provider = client();
    await provider.get(listPath);
    sim.failNext(2, 503);
    const envelope = await provider.get(listPath);
    expect(envelope.type).toBe('array');
    expect(gets(listPath)).toBe(4);
    expect(sleeps).toHaveLength(2);
    sleeps.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(bound(index + 1));
    });
  });

  it('doubles the back-off ceiling per attempt and never waits longer than 30 s', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const provider = client({ baseDelayMs: 12_000, maxAttempts: 5 });
    await provider.get(listPath);
    sim.failNext(4, 502);
    await provider.get(listPath);
    expect(sleeps).toEqual([12_000, 24_000, 30_000, 30_000]);
  });

  it('retries the token request when it fails with a 5xx', async () => {
    sim.failNext(1, 503);
    await client().get(listPath);
    expect(sim.requests).toEqual([TOKEN, TOKEN, `GET ${listPath}`]);
    expect(sleeps).toHaveLength(1);
  });

  it.each([
    ['a 429', 429, null],
    ['a 400 gateway_rate_limit_error', 400, 'gateway_rate_limit_error'],
    ['a 400 gateway_error_please_retry', 400, 'gateway_error_please_retry'],
    ['a 504 gateway_timeout_error', 504, 'gateway_timeout_error'],
  ])('retries %s and then succeeds', async (_name, status, code) => {
    const provider = client();
    await provider.get(listPath);
    sim.failNext(1, status, code);
    await provider.get(listPath);
    expect(gets(listPath)).toBe(3);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThanOrEqual(bound(1));
  });

  it('fails with a ProviderError after maxAttempts attempts of a persistent 500', async () => {
    const provider = client({ maxAttempts: 3 });
    await provider.get(listPath);
    sim.failNext(3, 500, 'internal_server_error');
    const error = await failure(provider.get(listPath));
    expect(error.status).toBe(500);
    expect(error.code).toBe('internal_server_error');
    expect(error.message).toContain('3 attempt');
    expect(gets(listPath)).toBe(1 + 3);
    expect(sleeps).toHaveLength(2);
    // Exactly the three injected failures were used up.
    await provider.get(listPath);
    expect(gets(listPath)).toBe(1 + 3 + 1);
  });

  it('fails at once with the provider’s code on a 422 from a POST, without retrying', async () => {
    const provider = client();
    const missing = await failure(
      provider.post(`${listPath}/processing_ecomm`, { transaction_fee_cents: 30 }),
    );
    expect(missing.status).toBe(422);
    expect(missing.code).toBe('parameter_missing');
    expect(count(`POST ${listPath}/processing_ecomm`)).toBe(1);

    const notNil = await failure(
      provider.post(`${listPath}/processing_ach`, {
        variable_rate: 1,
        effective_end: new Date(currentDate.getTime() + HOUR).toISOString(),
      }),
    );
    expect(notNil.status).toBe(422);
    expect(notNil.code).toBe('effective_end_must_be_nil_for_fee_type');
    expect(count(`POST ${listPath}/processing_ach`)).toBe(1);
    expect(sleeps).toEqual([]);
    expect(sim.store.all()).toEqual([]);
  });

  it('fails at once with resource_not_found on a 404', async () => {
    const error = await failure(client().get(`${listPath}/platform`));
    expect(error.status).toBe(404);
    expect(error.code).toBe('resource_not_found');
    expect(gets(`${listPath}/platform`)).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('returns the created configuration envelope from a POST', async () => {
    const envelope = await client().post(`${listPath}/processing_ecomm`, { variable_rate: 2.9 });
    expect(envelope.type).toBe('standard_fee_configuration');
    expect(envelope.id).toMatch(/^sfc_/);
    expect(envelope.page_info).toBeNull();
  });

  // Seed, Common conventions: "Do not retry 4XX responses, except 409"; Errors: 409 "Retry is safe".
  // The client treats 409 like any other 4XX and fails at once. Marked `fails` until it retries 409.
  it('retries a 409 idempotency_request_in_progress, as the seed allows', async () => {
    const provider = client();
    await provider.get(listPath);
    sim.failNext(1, 409, 'idempotency_request_in_progress');
    await provider.get(listPath);
    expect(gets(listPath)).toBe(3);
  });

  it('retries a network error and fails with status null after maxAttempts', async () => {
    const closed = await serve(express(), 0);
    const port = (closed.address() as AddressInfo).port;
    await closeServer(closed);
    const provider = client({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 3 });
    const error = await failure(provider.get(listPath));
    expect(error.status).toBeNull();
    expect(error.code).toBeNull();
    expect(error.message).toMatch(/3 attempt.*network error/);
    expect(sleeps).toHaveLength(2);
    sleeps.forEach((delay, index) => {
      expect(delay).toBeLessThanOrEqual(bound(index + 1));
    });
  });

  it('abandons a request that gets no answer within timeoutMs and retries it', async () => {
    const provider = client({ timeoutMs: 200 });
    await provider.get(listPath);
    hangNext = 1;
    const envelope = await provider.get(listPath);
    expect(envelope.type).toBe('array');
    expect(urls.filter((url) => url === listPath)).toHaveLength(3);
    expect(sleeps).toHaveLength(1);
  });
});

describe('listAll', () => {
  it('returns all 230 history entries in three requests of limit=100', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 230; index++) {
      ids.push(sim.store.create(ACCOUNT, 'processing_ecomm', { variable_rate: 1 + index / 1000 }).id);
      currentDate = new Date(currentDate.getTime() + MINUTE);
    }
    const items = (await client().listAll(historyPath)) as { id: string }[];
    expect(items).toHaveLength(230);
    expect(items.map((item) => item.id)).toEqual(ids.reverse());
    expect(gets(historyPath)).toBe(3);
    const pages = urls.filter((url) => url.startsWith(historyPath));
    expect(pages).toHaveLength(3);
    pages.forEach((url, index) => {
      const query = new URL(url, baseUrl).searchParams;
      expect(query.get('limit')).toBe('100');
      expect(query.has('after_cursor')).toBe(index > 0);
    });
  });

  it('returns an empty array for an empty list in one request', async () => {
    expect(await client().listAll(historyPath)).toEqual([]);
    expect(gets(historyPath)).toBe(1);
  });

  it('retries a failed page without losing or repeating items', async () => {
    for (let index = 0; index < 150; index++) {
      sim.store.create(ACCOUNT, 'processing_ecomm', { variable_rate: 1 });
      currentDate = new Date(currentDate.getTime() + MINUTE);
    }
    const provider = client();
    await provider.get(listPath);
    // The second page (the first with an after_cursor) fails once with a 503.
    let failed = false;
    beforeRequest = (url) => {
      if (url.startsWith(historyPath) && url.includes('after_cursor') && !failed) {
        failed = true;
        sim.failNext(1, 503);
      }
    };
    const items = (await provider.listAll(historyPath)) as { id: string }[];
    expect(items).toHaveLength(150);
    expect(new Set(items.map((item) => item.id)).size).toBe(150);
    expect(sleeps).toHaveLength(1);
    expect(urls.filter((url) => url.startsWith(historyPath))).toHaveLength(3);
    expect(urls.filter((url) => url.startsWith(historyPath))).toHaveLength(3);
  });
});
