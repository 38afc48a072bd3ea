import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/ingest/signature.ts';
import { createLogger } from '../../src/logger.ts';
import { createProviderClient } from '../../src/provider/client.ts';
import { traceVerification, traceWebhookRequests } from '../../src/tracing/spans.ts';
import { startTracing } from '../../src/tracing/tracing.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { settle } from '../helpers/fixtures.ts';

// OTLP/HTTP JSON, as far as this test reads it.
type Value = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: Value[] };
};
type Attribute = { key: string; value: Value };
type ExportedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Attribute[];
  links?: { traceId: string; spanId: string }[];
};
type ExportRequest = {
  resourceSpans: { resource: { attributes: Attribute[] }; scopeSpans: { spans: ExportedSpan[] }[] }[];
};

const SERVER_KIND = 2;
const CLIENT_KIND = 3;
const CONSUMER_KIND = 5;

function plain(value: Value): unknown {
  if (value.arrayValue) return value.arrayValue.values.map(plain);
  return (
    value.stringValue ??
    value.boolValue ??
    (value.intValue === undefined ? undefined : Number(value.intValue))
  );
}
const attributesOf = (attributes: Attribute[]) =>
  Object.fromEntries(attributes.map((attribute) => [attribute.key, plain(attribute.value)]));

/** A tiny OTLP/HTTP receiver: keeps every JSON export request posted to /v1/traces. */
async function startReceiver(): Promise<{ server: Server; url: string; exports: ExportRequest[] }> {
  const exports: ExportRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json'))
        exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports };
}

/** A provider that answers the token request and one payment. */
async function startProvider(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const body = req.url?.startsWith('/oauth/token')
      ? { access_token: 'token_1' }
      : { id: 'py_traced', type: 'payment', data: { id: 'py_traced' }, page_info: null };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let spans: ExportedSpan[];
  let resource: Record<string, unknown>;
  let storedTraceparent: string | undefined;
  const event = paymentEvent();

  beforeAll(async () => {
    receiver = await startReceiver();
    const provider = await startProvider();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'tally-test' };
    // The exporter and the resource read the standard settings from the process environment.
    Object.assign(process.env, env);
    const stopTracing = startTracing(process.env, createLogger('warn'));
    let t: TestApp | null = null;
    try {
      t = await startTestApp({ worker: true, workerJobs: ['process-event', 'reconcile-payments'] });
      expect((await postSigned(t.app, event)).status).toBe(200);
      await settle(t);
      const { rows } = await t.pool.query<{ traceparent: string }>(
        `select headers->>'traceparent' as traceparent from events where event_id = $1`,
        [event.id],
      );
      storedTraceparent = rows[0]?.traceparent;
      const log = createLogger('warn');
      const client = createProviderClient({ baseUrl: provider.url, clientId: 'c', clientSecret: 's', log });
      await client.getPayment('py_traced');
    } finally {
      await t?.close();
      await stopTracing?.();
      for (const name of Object.keys(env)) delete process.env[name];
      provider.server.close();
    }
    spans = receiver.exports.flatMap((request) =>
      request.resourceSpans.flatMap((resourceSpans) =>
        resourceSpans.scopeSpans.flatMap((scope) => scope.spans),
      ),
    );
    resource = attributesOf(receiver.exports[0]?.resourceSpans[0]?.resource.attributes ?? []);
  });
  afterAll(() => receiver.server.close());

  const named = (name: string) => spans.filter((span) => span.name === name);

  it('exports spans over OTLP/HTTP under the service name OTEL_SERVICE_NAME gives', () => {
    expect(resource['service.name']).toBe('tally-test');
  });

  it('a signed delivery gets a server span, with its verification and group-commit flush inside it', () => {
    const [request] = named('POST /webhooks');
    expect(request).toBeDefined();
    expect(request?.kind).toBe(SERVER_KIND);
    expect(attributesOf(request?.attributes ?? [])).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/webhooks',
      'http.response.status_code': 200,
    });
    const [verify] = named('tally.webhook.verify');
    expect(verify?.parentSpanId).toBe(request?.spanId);
    expect(attributesOf(verify?.attributes ?? [])['tally.signature.ok']).toBe(true);
    const [flush] = named('tally.ingest.flush');
    expect(flush?.parentSpanId).toBe(request?.spanId);
    expect(flush?.links).toEqual([
      expect.objectContaining({ traceId: request?.traceId, spanId: request?.spanId }),
    ]);
  });

  it('the delivery keeps the request trace context in its stored headers', () => {
    const [request] = named('POST /webhooks');
    expect(storedTraceparent).toBe(`00-${request?.traceId}-${request?.spanId}-01`);
  });

  it('the worker batch that projects it names its event id and links back to the request', () => {
    const [request] = named('POST /webhooks');
    const batch = named('tally.worker.batch').find((span) =>
      (attributesOf(span.attributes)['tally.event_ids'] as string[]).includes(event.id),
    );
    expect(attributesOf(batch?.attributes ?? [])).toMatchObject({
      'tally.batch.size': 1,
      'tally.event_ids': [event.id],
    });
    expect(batch?.links).toEqual([
      expect.objectContaining({ traceId: request?.traceId, spanId: request?.spanId }),
    ]);
  });

  it('the reconciliation job the batch queued gets a consumer span naming its queue', () => {
    const [job] = named('job reconcile-payments');
    expect(job?.kind).toBe(CONSUMER_KIND);
    expect(attributesOf(job?.attributes ?? [])).toMatchObject({
      'messaging.system': 'pg-boss',
      'messaging.destination.name': 'reconcile-payments',
    });
    expect((attributesOf(job?.attributes ?? [])['tally.job_ids'] as string[]).length).toBe(1);
  });

  it('each provider API exchange gets a client span with its method and path', () => {
    const calls = spans
      .filter((span) => span.name.startsWith('provider '))
      .map((span) => ({ name: span.name, kind: span.kind, ...attributesOf(span.attributes) }));
    expect(calls).toEqual(
      expect.arrayContaining([
        {
          name: 'provider POST',
          kind: CLIENT_KIND,
          'http.request.method': 'POST',
          'url.path': '/oauth/token',
        },
        {
          name: 'provider GET',
          kind: CLIENT_KIND,
          'http.request.method': 'GET',
          'url.path': '/v1/payments/py_traced',
        },
      ]),
    );
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('registers nothing, and the hot paths run unwrapped', () => {
    expect(startTracing({ OTEL_SERVICE_NAME: 'tally' }, createLogger('warn'))).toBeNull();
    const handler = async () => {};
    expect(traceWebhookRequests(handler)).toBe(handler);
    expect(traceVerification(verifySignature)).toBe(verifySignature);
  });

  it('a delivery is stored without a traceparent', async () => {
    const t = await startTestApp();
    try {
      const event = paymentEvent();
      expect((await postSigned(t.app, event)).status).toBe(200);
      const { rows } = await t.pool.query(`select headers from events where event_id = $1`, [event.id]);
      expect(Object.keys(rows[0].headers).sort()).toEqual([
        'content-type',
        'justifi-signature',
        'justifi-timestamp',
      ]);
    } finally {
      await t.close();
    }
  });
});
