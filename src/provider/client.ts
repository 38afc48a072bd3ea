import type { Logger } from '../logger.ts';

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
const RETRYABLE_CODES = new Set([
  'gateway_rate_limit_error',
  'gateway_error_please_retry',
  'gateway_timeout_error',
]);

export type ProviderClient = ReturnType<typeof createProviderClient>;

/**
 * The provider API: OAuth client credentials (token cached, one refresh-and-retry on 401), cursor
 * pagination, and bounded exponential back-off with full jitter on 429, 5xx, rate-limit codes and
 * network errors. Anything else fails at once with the provider's error code.
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
    const body = await send(
      'POST',
      '/oauth/token',
      { client_id: options.clientId, client_secret: options.clientSecret },
      null,
    );
    const value = (body as { access_token?: unknown }).access_token;
    if (typeof value !== 'string') throw new ProviderError('token response has no access_token', null, null);
    token = { value, expiresAt: now() + TOKEN_LIFETIME_MS };
    return value;
  }

  // One HTTP exchange with retries; `auth` null means no bearer (the token request itself).
  async function send(
    method: string,
    path: string,
    body: unknown,
    auth: 'bearer' | null,
    subAccount?: string,
  ) {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth) headers.authorization = `Bearer ${await accessToken()}`;
      if (subAccount) headers['sub-account'] = subAccount;
      let response: Response | null = null;
      let failure: string;
      try {
        response = await fetch(new URL(path, options.baseUrl), {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        failure = `HTTP ${response.status}`;
      } catch (err) {
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
      const status = response?.status ?? 0;
      const retryable =
        !response || status === 409 || status === 429 || status >= 500 || RETRYABLE_CODES.has(code ?? '');
      if (!retryable || attempt >= maxAttempts) {
        const message = `${method} ${path} failed after ${attempt} attempt(s): ${failure}${code ? ` (${code})` : ''}`;
        throw new ProviderError(message, response?.status ?? null, code);
      }
      const delay = Math.round(Math.random() * Math.min(30_000, baseDelayMs * 2 ** (attempt - 1)));
      options.log.warn({ path, attempt, delay, failure, code }, 'provider request failed; retrying');
      await sleep(delay);
    }
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
      let cursor: string | null = null;
      for (;;) {
        const query = new URLSearchParams({ limit: '100', ...(cursor ? { after_cursor: cursor } : {}) });
        const page = (await send('GET', `${path}?${query}`, undefined, 'bearer', subAccount)) as Envelope;
        if (!Array.isArray(page.data)) throw new ProviderError(`${path} did not return a list`, null, null);
        items.push(...page.data);
        if (!page.page_info?.has_next || !page.page_info.end_cursor) return items;
        cursor = page.page_info.end_cursor;
      }
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
