// When the provider client tries a request again, and how long it waits first.

// The seed's "retry" codes, and the in-progress idempotency codes it calls safe to retry (usually a 409).
// Not `gateway_error` ("try later"): it does not say whether a POST took effect.
const RETRYABLE_CODES = new Set([
  'gateway_rate_limit_error',
  'gateway_error_please_retry',
  'gateway_timeout_error',
  'idempotency_request_in_progress',
  'idempotency_concurrent_request',
]);

// Failures of the connection itself, before a byte of the request was written: the provider never saw it.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The longest a `Retry-After` is waited: longer asks are cut to it (a job does not sleep for an hour). */
export const RETRY_AFTER_CAP_MS = 60_000;

/** Whether a fetch failure happened before the request was sent (undici names the cause). */
function neverSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' && NOT_SENT_CODES.has(cause.code);
}

/**
 * Whether to try again. A repeatable request (a GET, or the token request, which creates nothing) is retried
 * on a network error, 409, 429, 5xx and the seed's retry codes. Any other POST may already have taken effect
 * once it was sent: it is retried only when it never left (the connection failed) or the provider said it
 * did not act on it (429, 409 in progress, the rate-limit and please-retry codes); never after a 5xx or a
 * network error once sent, which would risk doing it twice.
 */
export function shouldRetry(
  repeatable: boolean,
  outcome: { status: number | null; code: string | null; error: unknown },
): boolean {
  const { status, code, error } = outcome;
  if (status === null) return repeatable || neverSent(error);
  const retryCode = code !== null && RETRYABLE_CODES.has(code);
  // A gateway timeout does not say whether the request took effect; the other codes say it did not.
  const saidNotDone = status === 429 || status === 409 || (retryCode && code !== 'gateway_timeout_error');
  return saidNotDone || (repeatable && (status >= 500 || retryCode));
}

/**
 * A `Retry-After` header (seconds, or an HTTP date) as milliseconds to wait from `now`, at most
 * RETRY_AFTER_CAP_MS; null when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  if (Number.isNaN(ms)) return null;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}
