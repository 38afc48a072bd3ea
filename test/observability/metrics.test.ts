import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebListener } from '../../src/api/app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { createMetricsApp } from '../../src/api/metricsRoutes.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { sign } from '../../src/ingest/signature.ts';
import { API_TOKEN, SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { paymentEvent, unixSeconds } from '../helpers/deliveries.ts';
import { startRole } from '../helpers/roles.ts';

const PROMETHEUS_TOKEN = 'prometheus-scrape-token-0123456789';
const FINANCE_TOKEN = 'finance-read-token-0123456789';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A pool that counts the queries it runs and makes each one take `delayMs` longer, like a busy database. */
function countingPool(t: TestApp, delayMs: number, databaseUrl = t.databaseUrl) {
  const pool: Pool = createPool(databaseUrl, t.log, 1, 'tally-metrics');
  let queries = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as { query: unknown }).query = async (...args: unknown[]) => {
    queries += 1;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return query(...args);
  };
  return { pool, queries: () => queries };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: { API_TOKENS: `prometheus:metrics:${PROMETHEUS_TOKEN},finance:read:${FINANCE_TOKEN}` },
  });
});
afterAll(() => t.close());

describe('GET /metrics on the main port', () => {
  it('needs a bearer token: none or an unknown one is 401', async () => {
    const none = await request(t.app).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('not_authenticated');
    expect(none.text).not.toContain('tally_');
    expect((await request(t.app).get('/metrics').set(bearer('not-a-configured-token'))).status).toBe(401);
  });

  it('answers a token of any role: metrics, read and admin', async () => {
    for (const token of [PROMETHEUS_TOKEN, FINANCE_TOKEN, API_TOKEN]) {
      const response = await request(t.app).get('/metrics').set(bearer(token));
      expect(response.status, token).toBe(200);
      expect(response.text).toContain('tally_database_up 1');
    }
  });

  it('a metrics token reads nothing else: /api/* is 403 and the console refuses to sign it in', async () => {
    const status = await request(t.app).get('/api/status').set(bearer(PROMETHEUS_TOKEN));
    expect(status.status).toBe(403);
    expect(status.body.error).toEqual({
      code: 'forbidden',
      message: 'token prometheus is a metrics token: it reads GET /metrics only',
    });
    expect((await request(t.app).get('/api/findings').set(bearer(PROMETHEUS_TOKEN))).status).toBe(403);
    const agent = request.agent(t.app);
    const form = await agent.get('/console/sign-in');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
    const signIn = await agent
      .post('/console/sign-in')
      .type('form')
      .send({ token: PROMETHEUS_TOKEN, _csrf: csrf });
    expect(signIn.status).toBe(403);
    expect(signIn.text).toContain('A metrics token reads GET /metrics only.');
    expect((await agent.get('/console')).headers.location).toBe('/console/sign-in');
  });
});

describe('GET /metrics with METRICS_PORT set', () => {
  it('is not on the main port, even with a token; the metrics listener serves it without one, and nothing else', async () => {
    const withPort = await startTestApp({ databaseUrl: t.databaseUrl, env: { METRICS_PORT: '9464' } });
    try {
      const main = await request(withPort.app).get('/metrics').set(bearer(API_TOKEN));
      expect(main.status).toBe(404);
      const metricsApp = createMetricsApp(createMetrics(withPort.pool, withPort.boss), withPort.log);
      const scrape = await request(metricsApp).get('/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.text).toContain('tally_database_up 1');
      expect((await request(metricsApp).get('/api/status').set(bearer(API_TOKEN))).status).toBe(404);
      expect((await request(metricsApp).get('/console/sign-in')).status).toBe(404);
    } finally {
      await withPort.close();
    }
  });

  it('the web role serves it on its own port, and stops both listeners on SIGTERM', async () => {
    const databaseUrl = await createTestDatabase();
    const web = startRole(
      'web',
      {
        DATABASE_URL: databaseUrl,
        WEBHOOK_SECRETS: 'whsec_metrics_port_0123456789_abcd',
        PORT: '0',
        METRICS_PORT: '0',
      },
      'metrics listening',
    );
    const { port: metricsPort } = await web.started;
    const webPort = JSON.parse(web.lines.find((line) => line.includes('"web listening"')) ?? '{}').port;
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('tally_database_up 1');
    expect((await fetch(`http://127.0.0.1:${webPort}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${webPort}/healthz`)).status).toBe(200);
    web.child.kill('SIGTERM');
    expect(await web.exited).toBe(0);
  }, 60_000);
});

describe('scrapes and the database', () => {
  it('50 concurrent scrapes run one collection, a scrape within a few seconds reuses it, and a webhook is acknowledged meanwhile', async () => {
    const counted = countingPool(t, 150);
    const metrics = createMetrics(counted.pool, t.boss, { freshForMs: 60_000 });
    const server = await serve(createWebListener({ ...t, metrics }), 0);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const postWebhook = () => {
      const body = JSON.stringify(paymentEvent());
      const timestamp = unixSeconds();
      return fetch(`${base}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'justifi-timestamp': timestamp,
          'justifi-signature': sign(SECRETS[0], timestamp, body),
        },
        body,
      });
    };
    try {
      const scrape = () =>
        fetch(`${base}/metrics`, { headers: bearer(PROMETHEUS_TOKEN) }).then(async (response) => ({
          status: response.status,
          text: await response.text(),
        }));
      // The first webhook of a writer opens its connection: not what this measures.
      expect((await postWebhook()).status).toBe(200);
      const started = performance.now();
      const scrapes = Promise.all(Array.from({ length: 50 }, scrape));
      // The webhook arrives while the collection runs: its nine queries wait 150 ms each on the metrics pool.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ackStarted = performance.now();
      const webhook = await postWebhook();
      const ackMs = performance.now() - ackStarted;
      const answers = await scrapes;
      const scrapesMs = performance.now() - started;
      expect(webhook.status).toBe(200);
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(answers.every((answer) => answer.text.includes('tally_database_up 1'))).toBe(true);
      // One collection: a ping and eight reads on the metrics pool (pg-boss counts its queues on its own pool).
      expect(counted.queries()).toBe(9);
      // The scrapes cannot finish before their collection (9 × 150 ms); the webhook never waited for it.
      expect(scrapesMs).toBeGreaterThan(1_350);
      expect(ackMs).toBeLessThan(scrapesMs / 2);
      expect((await scrape()).status).toBe(200);
      expect(counted.queries()).toBe(9);
    } finally {
      await closeServer(server);
      await counted.pool.end();
    }
  });

  it('a scrape after the collection has gone stale collects again', async () => {
    const counted = countingPool(t, 0);
    try {
      const metrics = createMetrics(counted.pool, t.boss, { freshForMs: 200 });
      await metrics.exposition();
      await metrics.exposition();
      expect(counted.queries()).toBe(9);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await metrics.exposition();
      expect(counted.queries()).toBe(18);
    } finally {
      await counted.pool.end();
    }
  });

  it('with the database down, a scrape answers at once that it is down, after one failed ping', async () => {
    const closed = await serve(express(), 0);
    const port = (closed.address() as AddressInfo).port;
    await closeServer(closed);
    const counted = countingPool(t, 0, `postgres://tally:x@127.0.0.1:${port}/tally`);
    try {
      const text = await createMetrics(counted.pool, t.boss, { freshForMs: 0 }).exposition();
      expect(text).toContain('tally_database_up 0');
      expect(counted.queries()).toBe(1);
    } finally {
      await counted.pool.end();
    }
  });
});
