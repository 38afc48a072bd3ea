import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebListener } from '../../src/api/app.ts';
import { createMetrics, type Metrics } from '../../src/api/metrics.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { sign } from '../../src/ingest/signature.ts';
import { SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, unixSeconds } from '../helpers/deliveries.ts';

// The web role answers POST /webhooks without Express (api/app.ts createWebListener); tests elsewhere drive
// the Express app. Both are served here on real sockets, and every answer must be the same.
let t: TestApp;
let metrics: Metrics;
let expressServer: Server;
let listenerServer: Server;
const bases: Record<'express' | 'listener', string> = { express: '', listener: '' };

const baseOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  t = await startTestApp();
  metrics = createMetrics(t.pool, t.boss);
  expressServer = await serve(t.app, 0);
  const listener = createWebListener({ ...t, metrics });
  listenerServer = await serve(listener, 0);
  bases.express = baseOf(expressServer);
  bases.listener = baseOf(listenerServer);
});
afterAll(async () => {
  await closeServer(expressServer);
  await closeServer(listenerServer);
  await t.close();
});

function signed(raw: string | Buffer): Record<string, string> {
  const timestamp = unixSeconds();
  return {
    'content-type': 'application/json',
    'justifi-timestamp': timestamp,
    'justifi-signature': sign(SECRETS[0], timestamp, raw),
  };
}

type Answer = { status: number; contentType: string | null; text: string };

async function post(base: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${base}/webhooks`, { method: 'POST', headers, body });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

// Each case sends its own request (fresh event ids) to one base; event ids are masked before comparing.
const cases: { name: string; status: number; send: (base: string) => Promise<Answer> }[] = [
  {
    name: 'a new delivery',
    status: 200,
    send: (base) => {
      const raw = JSON.stringify(paymentEvent());
      return post(base, raw, signed(raw));
    },
  },
  {
    name: 'a duplicate delivery',
    status: 200,
    send: async (base) => {
      const raw = JSON.stringify(paymentEvent());
      await post(base, raw, signed(raw));
      return post(base, raw, signed(raw));
    },
  },
  {
    name: 'a quarantined delivery',
    status: 200,
    send: (base) => {
      const raw = JSON.stringify({ not: 'an envelope', nonce: Math.random() });
      return post(base, raw, signed(raw));
    },
  },
  {
    name: 'an unsigned delivery',
    status: 401,
    send: (base) => post(base, JSON.stringify(paymentEvent()), { 'content-type': 'application/json' }),
  },
  {
    name: 'a badly signed delivery',
    status: 401,
    send: (base) => post(base, JSON.stringify(paymentEvent()), signed('other bytes')),
  },
  {
    name: 'a signed body that is not JSON',
    status: 400,
    send: (base) => post(base, '{"id":', signed('{"id":')),
  },
  {
    name: 'a signed body that is not UTF-8',
    status: 400,
    send: (base) => {
      const raw = Buffer.from([0x22, 0xff, 0xfe, 0x22]);
      return post(base, raw, signed(raw));
    },
  },
  {
    name: 'a body over 1 MiB',
    status: 413,
    send: (base) => {
      const raw = JSON.stringify(paymentEvent({ padding: 'x'.repeat(1024 * 1024) }));
      return post(base, raw, signed(raw));
    },
  },
  {
    name: 'a body in an unsupported Content-Encoding',
    status: 415,
    send: (base) => post(base, '{}', { ...signed('{}'), 'content-encoding': 'compress' }),
  },
];

const masked = (answer: Answer) => ({ ...answer, text: answer.text.replace(/"evt_[^"]*"/, '"evt_…"') });

describe('POST /webhooks through the web role listener', () => {
  it.each(cases)('$name gets $status and the same answer as through Express', async ({ send, status }) => {
    const viaExpress = await send(bases.express);
    const viaListener = await send(bases.listener);
    expect(viaListener.status).toBe(status);
    expect(masked(viaListener)).toEqual(masked(viaExpress));
  });

  it('counts its deliveries and ack times in the metrics', async () => {
    const raw = JSON.stringify(paymentEvent());
    await post(bases.listener, raw, signed(raw));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tally_webhook_deliveries_total\{outcome="accepted"\} [1-9]/);
    expect(text).toMatch(/tally_webhook_ack_seconds_count\{status="200"\} [1-9]/);
  });

  it('hands every other request to the app', async () => {
    expect((await fetch(`${bases.listener}/healthz`)).status).toBe(200);
    const missing = await fetch(`${bases.listener}/webhooks`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'resource_not_found', message: 'no such endpoint' },
    });
  });
});
