import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_CAP, sendChange } from '../../src/subscriptions/sendChange.ts';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A receiver behaving as `handler` says; `written` counts the bytes of its answers that left it. */
async function receiver(handler: http.RequestListener) {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const send = (url: string, timeoutMs?: number) =>
  sendChange(url, { 'webhook-id': 'chg_1' }, '{"id":"chg_1"}', timeoutMs);

describe('a hostile receiver', () => {
  it('a redirect is a failure and is not followed', async () => {
    let followed = false;
    const url = await receiver((req, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(307, { location: '/elsewhere' }).end();
    });
    expect(await send(url)).toMatchObject({
      outcome: 'redirect',
      status_code: 307,
      error: 'redirects are not followed',
    });
    expect(followed).toBe(false);
  });

  it('a huge answer is read no further than the cap, and a 2xx is still delivered', async () => {
    let sent = 0;
    let closed: (early: boolean) => void = () => undefined;
    const closing = new Promise<boolean>((resolve) => {
      closed = resolve;
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const url = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => closed(!res.writableFinished));
      const pump = () => {
        while (sent < 512 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const result = await send(url);
    expect(result).toMatchObject({ outcome: 'delivered', status_code: 200 });
    // The receiver's answer was cut before its end: Tally closed the connection.
    expect(await closing).toBe(true);
    // What left the receiver before the close is the cap plus what the sockets' buffers held.
    expect(sent).toBeLessThan(RESPONSE_CAP + 16 * 1024 * 1024);
  });

  it('an answer that never ends is cut at the time limit; a 2xx status that came in time counts', async () => {
    const url = await receiver((_req, res) => {
      res.writeHead(200);
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    const started = performance.now();
    expect(await send(url, 1_000)).toMatchObject({ outcome: 'delivered', status_code: 200 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('headers that trickle in slower than the time limit are a timeout', async () => {
    const url = await receiver((req, res) => {
      req.resume();
      // Accepts the connection and the request, then answers only after the limit.
      setTimeout(() => res.writeHead(200).end(), 3_000).unref();
    });
    const result = await send(url, 1_000);
    expect(result).toMatchObject({ outcome: 'timeout', status_code: null, error: 'no answer within 1 s' });
    expect(result.duration_ms).toBeLessThan(1_500);
  });

  it('a link-local or metadata address is refused without a connection', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/',
      'http://metadata.google.internal/',
    ]) {
      const result = await send(url);
      expect(result).toMatchObject({ outcome: 'refused_address', status_code: null });
      expect(result.duration_ms).toBeLessThan(100);
    }
  });

  it('a closed port is a network error, a 4xx or 5xx an http error', async () => {
    const closed = await receiver(() => undefined);
    servers[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await send(closed)).toMatchObject({
      outcome: 'network_error',
      status_code: null,
      error: 'ECONNREFUSED',
    });
    const gone = await receiver((_req, res) => res.writeHead(410).end('gone'));
    expect(await send(gone)).toMatchObject({
      outcome: 'http_error',
      status_code: 410,
      error: 'answered 410',
    });
  });
});
