import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimulator, type Simulator } from '../../simulator/server.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { createLogger } from '../../src/logger.ts';
import {
  createProviderClient,
  type ProviderClientOptions,
  ProviderError,
} from '../../src/provider/client.ts';

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
/** The `Sub-Account` header of each request, in order (undefined when absent). */
let subAccounts: (string | undefined)[];
/** Bodies the next /v1 requests get with a 200 instead of the simulator's answer. */
let answerNext: unknown[];

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
  subAccounts = [];
  answerNext = [];
  const outer = express();
  outer.use((req, res, next) => {
    urls.push(req.originalUrl);
    subAccounts.push(req.get('sub-account'));
    beforeRequest?.(req.originalUrl);
    if (req.path.startsWith('/v1') && answerNext.length > 0) {
      res.json(answerNext.shift());
      return;
    }
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

// The missed-event sweep's reads: pages it can stop early, one payment by id, forwarding requests by window.
const OTHER_ACCOUNT = 'acc_sub_other';
const PAYMENTS = '/v1/payments';
const FORWARDING = '/v1/forwarding/requests';
const T0 = Date.parse('2025-05-01T00:00:00.000Z');

/** `count` payments of `account`, one a minute from T0; ids newest first, as the API lists them. */
function putPayments(count: number, account = ACCOUNT, prefix = 'py_pc'): string[] {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const at = new Date(T0 + index * MINUTE).toISOString();
    const id = `${prefix}_${String(index).padStart(4, '0')}`;
    sim.putPayment({
      id,
      account_id: account,
      amount: 1000,
      status: 'succeeded',
      created_at: at,
      updated_at: at,
    });
    ids.push(id);
  }
  return ids.reverse();
}
const pageUrls = (path: string) => urls.filter((url) => url.startsWith(`${path}?`));
const queryOf = (url: string) => new URL(url, 'http://x').searchParams;
const idsOf = (page: unknown[]) => (page as { id: string }[]).map((item) => item.id);

async function collect(generator: AsyncGenerator<unknown[]>): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  for await (const page of generator) pages.push(page);
  return pages;
}

describe('paymentPages', () => {
  it('yields a sub account’s payments newest first, 100 a page, with its Sub-Account header on each request', async () => {
    const ids = putPayments(250);
    putPayments(3, OTHER_ACCOUNT, 'py_other');
    const pages = await collect(client().paymentPages(ACCOUNT));
    expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
    expect(pages.flatMap(idsOf)).toEqual(ids);
    const requested = pageUrls(PAYMENTS);
    expect(requested).toHaveLength(3);
    requested.forEach((url, index) => {
      expect(queryOf(url).get('limit')).toBe('100');
      expect(queryOf(url).has('after_cursor')).toBe(index > 0);
    });
    expect(subAccounts.filter((_, index) => urls[index]?.startsWith(PAYMENTS))).toEqual([
      ACCOUNT,
      ACCOUNT,
      ACCOUNT,
    ]);
  });

  it('sends no further request once the caller breaks out of the loop', async () => {
    putPayments(250);
    const seen: string[] = [];
    for await (const page of client().paymentPages(ACCOUNT)) {
      seen.push(...idsOf(page));
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(100);
    expect(gets(PAYMENTS)).toBe(1);
    expect(sim.requests).toEqual([TOKEN, `GET ${PAYMENTS}`]);
  });

  it('yields one empty page for an account with no payments', async () => {
    expect(await collect(client().paymentPages(ACCOUNT))).toEqual([[]]);
    expect(gets(PAYMENTS)).toBe(1);
  });

  it.each([
    ['a 429', 429, null],
    ['a 500', 500, 'internal_server_error'],
    ['a 400 gateway_rate_limit_error', 400, 'gateway_rate_limit_error'],
  ])(
    'retries %s on a later page inside that page, repeating and losing nothing',
    async (_name, status, code) => {
      const ids = putPayments(150);
      const provider = client();
      const pages: unknown[][] = [];
      for await (const page of provider.paymentPages(ACCOUNT)) {
        pages.push(page);
        if (pages.length === 1) sim.failNext(1, status, code);
      }
      expect(pages.flatMap(idsOf)).toEqual(ids);
      expect(pages).toHaveLength(2);
      expect(gets(PAYMENTS)).toBe(3);
      expect(sleeps).toHaveLength(1);
      expect(sleeps[0]).toBeLessThanOrEqual(bound(1));
    },
  );

  it('refreshes a token revoked between pages once, and carries on from the same cursor', async () => {
    const ids = putPayments(150);
    const pages: unknown[][] = [];
    for await (const page of client().paymentPages(ACCOUNT)) {
      pages.push(page);
      sim.revokeTokens();
    }
    expect(pages.flatMap(idsOf)).toEqual(ids);
    expect(sim.requests).toEqual([TOKEN, `GET ${PAYMENTS}`, `GET ${PAYMENTS}`, TOKEN, `GET ${PAYMENTS}`]);
    const [, refused, retried] = pageUrls(PAYMENTS);
    expect(retried).toBe(refused);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ['an object', { id: 'py_1', type: 'payment', data: { id: 'py_1' }, page_info: null }],
    ['no data', { id: null, type: 'array', page_info: null }],
    ['a bare array', []],
  ])('fails with a ProviderError when the answer is %s instead of a list', async (_name, body) => {
    answerNext.push(body);
    const error = await failure(collect(client().paymentPages(ACCOUNT)));
    expect(error.message).toContain('did not return a list');
    expect(error.status).toBeNull();
    expect(sleeps).toEqual([]);
  });
});

describe('getPayment', () => {
  it('resolves to the payment itself, the envelope’s data', async () => {
    const [id] = putPayments(1);
    const payment = (await client().getPayment(id as string)) as Record<string, unknown>;
    expect(payment).toEqual({
      id,
      account_id: ACCOUNT,
      amount: 1000,
      status: 'succeeded',
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString(),
    });
    expect(subAccounts.at(-1)).toBeUndefined();
  });

  it('URL-encodes the id and sends the Sub-Account header when given', async () => {
    const at = new Date(T0).toISOString();
    sim.putPayment({ id: 'py_odd id/1', account_id: ACCOUNT, created_at: at });
    const payment = (await client().getPayment('py_odd id/1', ACCOUNT)) as { id: string };
    expect(payment.id).toBe('py_odd id/1');
    expect(urls.at(-1)).toBe('/v1/payments/py_odd%20id%2F1');
    expect(subAccounts.at(-1)).toBe(ACCOUNT);
  });

  it('fails at once with the provider’s resource_not_found on an unknown id or another account', async () => {
    const [id] = putPayments(1);
    const provider = client();
    const unknown = await failure(provider.getPayment('py_missing'));
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe('resource_not_found');
    const elsewhere = await failure(provider.getPayment(id as string, OTHER_ACCOUNT));
    expect(elsewhere.code).toBe('resource_not_found');
    expect(gets('/v1/payments/py_missing')).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('retries a 503 and then resolves', async () => {
    const [id] = putPayments(1);
    const provider = client();
    await provider.get(listPath);
    sim.failNext(1, 503);
    expect(((await provider.getPayment(id as string)) as { id: string }).id).toBe(id);
    expect(gets(`/v1/payments/${id}`)).toBe(2);
    expect(sleeps).toHaveLength(1);
  });

  it('fails with a ProviderError when the answer carries no object', async () => {
    answerNext.push({ id: null, type: 'array', data: [], page_info: null });
    const error = await failure(client().getPayment('py_1'));
    expect(error.message).toContain('did not return an object');
  });
});

describe('forwardingRequestPages', () => {
  /** `count` forwarding requests of `account`, one a minute from T0; ids newest first. */
  function putForwardingRequests(count: number, account = ACCOUNT): string[] {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const at = new Date(T0 + index * MINUTE).toISOString();
      const id = `fwd_pc_${String(index).padStart(4, '0')}`;
      sim.putForwardingRequest({
        id,
        account_id: account,
        status: 'completed',
        created_at: at,
        updated_at: at,
      });
      ids.push(id);
    }
    return ids.reverse();
  }

  it('asks for created_after and yields only requests created since then, newest first, across pages', async () => {
    const ids = putForwardingRequests(200);
    sim.putForwardingRequest({
      id: 'fwd_other',
      account_id: OTHER_ACCOUNT,
      created_at: new Date(T0 + 150 * MINUTE).toISOString(),
    });
    const since = new Date(T0 + 50 * MINUTE);
    const pages = await collect(client().forwardingRequestPages(ACCOUNT, since));
    expect(pages.map((page) => page.length)).toEqual([100, 50]);
    expect(pages.flatMap(idsOf)).toEqual(ids.slice(0, 150));
    const requested = pageUrls(FORWARDING);
    expect(requested).toHaveLength(2);
    requested.forEach((url, index) => {
      expect(queryOf(url).get('created_after')).toBe('2025-05-01T00:50:00.000Z');
      expect(queryOf(url).get('limit')).toBe('100');
      expect(queryOf(url).has('after_cursor')).toBe(index > 0);
    });
    expect(subAccounts.filter((_, index) => urls[index]?.startsWith(FORWARDING))).toEqual([ACCOUNT, ACCOUNT]);
  });

  it('stops early without another request, and yields one empty page when nothing is that recent', async () => {
    putForwardingRequests(150);
    for await (const page of client().forwardingRequestPages(ACCOUNT, new Date(T0))) {
      expect(page).toHaveLength(100);
      break;
    }
    expect(gets(FORWARDING)).toBe(1);
    expect(await collect(client().forwardingRequestPages(ACCOUNT, new Date(T0 + 1000 * MINUTE)))).toEqual([
      [],
    ]);
  });
});
