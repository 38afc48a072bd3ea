import type { Logger } from '../logger.ts';
import { traceProviderCalls } from '../tracing/spans.ts';
import { retryAfterMs, shouldRetry } from './retryPolicy.ts';

/** An error the provider answered with (or the last one, after retries), carrying its error code. */
export class ProviderError extends Error {
  readonly status: number | null;
  readonly code: string | null;
  constructor(message: string, status: number | null, code: string | null) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export type ProviderClientOptions = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  log: Logger;
  maxAttempts?: number;
  timeoutMs?: number;
  baseDelayMs?: number;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
};

type Envelope = { id: string | null; type: string; data: unknown; page_info: PageInfo | null };
type PageInfo = {
  has_previous: boolean;
  has_next: boolean;
  start_cursor: string | null;
  end_cursor: string | null;
};

// Tokens live 24 h; renew well before so a long sync never runs on an expiring one.
const TOKEN_LIFETIME_MS = 24 * 3600 * 1000 - 10 * 60 * 1000;
const PAGE_LIMIT = '100';

/** The bounds `GET /v1/payouts` filters by. */
export type PayoutFilters = {
  createdAfter?: Date;
  createdBefore?: Date;
  depositsAfter?: Date;
  depositsBefore?: Date;
};

const PAYOUT_FILTERS: Record<keyof PayoutFilters, string> = {
  createdAfter: 'created_after',
  createdBefore: 'created_before',
  depositsAfter: 'deposits_after',
  depositsBefore: 'deposits_before',
};

export type ProviderClient = ReturnType<typeof createProviderClient>;

/**
 * The provider API: OAuth client credentials (token cached, one refresh-and-retry on 401), cursor
 * pagination, and bounded exponential back-off with full jitter on 429, 5xx, rate-limit codes and
 * network errors, waiting what a `Retry-After` asks instead (capped); a POST that may have reached the
 * provider is never sent twice (provider/retryPolicy.ts). Anything else fails at once with the provider's
 * error code.
 */
export function createProviderClient(options: ProviderClientOptions) {
  const maxAttempts = options.maxAttempts ?? 5;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  let token: { value: string; expiresAt: number } | null = null;

  async function accessToken(): Promise<string> {
    if (token && token.expiresAt > now()) return token.value;
    // The one POST that is safe to repeat: a client-credentials grant creates nothing, and a token issued to an
    // attempt whose answer was lost is simply never used.
    const body = await send(
      'POST',
      '/oauth/token',
      { client_id: options.clientId, client_secret: options.clientSecret },
      null,
      undefined,
      true,
    );
    const value = (body as { access_token?: unknown }).access_token;
    if (typeof value !== 'string') throw new ProviderError('token response has no access_token', null, null);
    token = { value, expiresAt: now() + TOKEN_LIFETIME_MS };
    return value;
  }

  // One HTTP exchange with retries; `auth` null means no bearer (the token request itself).
  const send = traceProviderCalls(async function send(
    method: string,
    path: string,
    body: unknown,
    auth: 'bearer' | null,
    subAccount?: string,
    repeatable: boolean = method === 'GET',
  ): Promise<unknown> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth) headers.authorization = `Bearer ${await accessToken()}`;
      if (subAccount) headers['sub-account'] = subAccount;
      let response: Response | null = null;
      let failure: string;
      let error: unknown = null;
      try {
        response = await fetch(new URL(path, options.baseUrl), {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        failure = `HTTP ${response.status}`;
      } catch (err) {
        error = err;
        failure = `network error: ${(err as Error).message}`;
      }
      const payload = response ? await response.json().catch(() => null) : null;
      if (response?.ok) return payload;
      const code = errorCode(payload);
      if (response?.status === 401 && auth && !refreshed) {
        // The token may have been revoked or expired early: get a new one once, then retry at once.
        refreshed = true;
        token = null;
        options.log.info({ path }, 'provider answered 401: refreshing the access token');
        continue;
      }
      // The seed: retry a 409 (same key still in progress), 429, 5xx and rate-limit codes; no other 4xx.
      const status = response?.status ?? null;
      if (!shouldRetry(repeatable, { status, code, error }) || attempt >= maxAttempts) {
        const message = `${method} ${path} failed after ${attempt} attempt(s): ${failure}${code ? ` (${code})` : ''}`;
        throw new ProviderError(message, status, code);
      }
      const delay =
        retryAfterMs(response?.headers.get('retry-after') ?? null, now()) ??
        Math.round(Math.random() * Math.min(30_000, baseDelayMs * 2 ** (attempt - 1)));
      options.log.warn({ path, attempt, delay, failure, code }, 'provider request failed; retrying');
      await sleep(delay);
    }
  });

  /**
   * The pages of a list endpoint, newest first as the provider lists them, following `end_cursor` 100 at a
   * time. Each page is requested only when the caller asks for it, so leaving a `for await` early sends
   * nothing more; a retry repeats only the page being fetched, never one already yielded.
   */
  async function* pages(path: string, filters: Record<string, string>, subAccount?: string) {
    let cursor: string | null = null;
    for (;;) {
      const query = new URLSearchParams({
        ...filters,
        limit: PAGE_LIMIT,
        ...(cursor ? { after_cursor: cursor } : {}),
      });
      const url = `${path}?${query}`;
      const page = (await send('GET', url, undefined, 'bearer', subAccount)) as Envelope | null;
      if (!Array.isArray(page?.data))
        throw new ProviderError(`GET ${path} did not return a list`, null, null);
      yield page.data as unknown[];
      const next = page.page_info?.has_next ? page.page_info.end_cursor : null;
      if (!next) return;
      // A provider handing back the cursor it was given would page forever.
      if (next === cursor) throw new ProviderError(`GET ${path} returned the same cursor twice`, null, null);
      cursor = next;
    }
  }

  // A single object's `data`; anything but an object is the provider's mistake, not something to store.
  async function getObject(path: string, subAccount?: string): Promise<unknown> {
    const envelope = (await send('GET', path, undefined, 'bearer', subAccount)) as Envelope | null;
    const data = envelope?.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new ProviderError(`GET ${path} did not return an object`, null, null);
    return data;
  }

  return {
    /** GET one resource; resolves to the envelope. */
    async get(path: string, subAccount?: string): Promise<Envelope> {
      return (await send('GET', path, undefined, 'bearer', subAccount)) as Envelope;
    },
    /** POST a body; resolves to the envelope. */
    async post(path: string, body: unknown): Promise<Envelope> {
      return (await send('POST', path, body, 'bearer')) as Envelope;
    },
    /** Every item of a list endpoint, following `page_info.end_cursor` 100 at a time. */
    async listAll(path: string, subAccount?: string): Promise<unknown[]> {
      const items: unknown[] = [];
      for await (const page of pages(path, {}, subAccount)) items.push(...page);
      return items;
    },
    /** A sub account's payments, a page (up to 100) at a time, newest first; raw objects for the caller to validate. */
    paymentPages(subAccount: string): AsyncGenerator<unknown[]> {
      return pages('/v1/payments', {}, subAccount);
    },
    /** A sub account's forwarding requests created at or after `createdAfter`, a page at a time, newest first. */
    forwardingRequestPages(subAccount: string, createdAfter: Date): AsyncGenerator<unknown[]> {
      return pages('/v1/forwarding/requests', { created_after: createdAfter.toISOString() }, subAccount);
    },
    /** One payment, with its fees: the envelope's `data`, raw. Unknown ids fail with `resource_not_found`. */
    getPayment(id: string, subAccount?: string): Promise<unknown> {
      return getObject(`/v1/payments/${encodeURIComponent(id)}`, subAccount);
    },
    /**
     * A sub account's payouts, a page (up to 100) at a time, newest first, created and depositing within the
     * bounds given; raw objects for the caller to validate.
     */
    payoutPages(subAccount: string, filters: PayoutFilters = {}): AsyncGenerator<unknown[]> {
      const query: Record<string, string> = {};
      for (const [name, at] of Object.entries(PAYOUT_FILTERS)) {
        const value = filters[name as keyof PayoutFilters];
        if (value) query[at] = value.toISOString();
      }
      return pages('/v1/payouts', query, subAccount);
    },
    /** One payout: the envelope's `data`, raw. Unknown ids fail with `resource_not_found`. */
    getPayout(id: string, subAccount: string): Promise<unknown> {
      return getObject(`/v1/payouts/${encodeURIComponent(id)}`, subAccount);
    },
    /** Every balance transaction (line) of a payout, a page (up to 100) at a time; raw objects. */
    balanceTransactionPages(payoutId: string, subAccount: string): AsyncGenerator<unknown[]> {
      return pages('/v1/balance_transactions', { payout_id: payoutId }, subAccount);
    },
    /**
     * A sub account's whole ledger (every balance transaction, in a payout or not yet), a page (up to 100) at a
     * time, newest first; only those created after `createdAfter` when given. Raw objects.
     */
    ledgerPages(subAccount: string, createdAfter: Date | null): AsyncGenerator<unknown[]> {
      const filters: Record<string, string> = createdAfter
        ? { created_after: createdAfter.toISOString() }
        : {};
      return pages('/v1/balance_transactions', filters, subAccount);
    },
  };
}

function errorCode(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const error = (payload as { error?: unknown; code?: unknown }).error;
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  const code = (payload as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}
