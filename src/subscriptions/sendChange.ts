/**
 * One POST of a change to a subscriber, bounded whatever the receiver does: 10 s from start to the last
 * byte read, redirects not followed (a 3xx is a failure), at most RESPONSE_CAP bytes of its answer read,
 * and no connection to a link-local or metadata address, also when a name resolves to one.
 */
import http from 'node:http';
import https from 'node:https';
import type { AttemptOutcome } from './attemptQueries.ts';
import { lookupRefusingLinkLocal, RefusedAddressError, targetProblem } from './targets.ts';

/** The time a receiver has to answer a change, its answer included. */
export const SEND_TIMEOUT_MS = 10_000;
/** The most of a receiver's answer Tally reads; past it, the connection is closed. */
export const RESPONSE_CAP = 16 * 1024;

export type SendResult = {
  outcome: AttemptOutcome;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
};

// Kept-alive connections, so a subscriber receiving hundreds of changes a second is not reconnected for each.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export async function sendChange(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs = SEND_TIMEOUT_MS,
): Promise<SendResult> {
  const started = performance.now();
  const done = (outcome: AttemptOutcome, status_code: number | null, error: string | null): SendResult => ({
    outcome,
    status_code,
    duration_ms: Math.round(performance.now() - started),
    error,
  });
  const problem = targetProblem(url);
  if (problem) return done('refused_address', null, `url ${problem}`);
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise<SendResult>((resolve) => {
    let status: number | null = null;
    const request = transport.request(
      target,
      {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        lookup: lookupRefusingLinkLocal,
        signal,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Tally-Forwarding',
          ...headers,
        },
      },
      (response) => {
        status = response.statusCode ?? 0;
        const answered = status >= 200 && status < 300 ? done('delivered', status, null) : failure(status);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Past the cap the rest is not read: the connection is closed instead of reused.
          if (read > RESPONSE_CAP) response.destroy();
        });
        response.on('close', () => resolve(answered));
        response.on('error', () => undefined);
      },
    );
    request.on('error', (err: Error & { code?: string }) => {
      // An answer already judged stands; an error after it is only the connection being closed.
      if (status !== null) return;
      if (signal.aborted) resolve(done('timeout', null, `no answer within ${timeoutMs / 1000} s`));
      else if (err instanceof RefusedAddressError) resolve(done('refused_address', null, err.message));
      else resolve(done('network_error', null, err.code ?? 'connection failed'));
    });
    request.end(body);
  });

  function failure(status: number): SendResult {
    if (status >= 300 && status < 400) return done('redirect', status, 'redirects are not followed');
    return done('http_error', status, `answered ${status}`);
  }
}
