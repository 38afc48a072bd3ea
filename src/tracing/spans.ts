import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

// Every wrapper below is chosen once, when what it wraps is built: with tracing off (no
// OTEL_EXPORTER_OTLP_ENDPOINT) the hot paths run the unwrapped functions and allocate nothing for tracing.
let enabled = false;
const tracer = trace.getTracer('tally');

/** Set by startTracing (tracing.ts) once the SDK is registered, and cleared when it stops. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}

function recordFailure(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `run` in an active span that ends when it settles, marked failed when it throws. */
async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | string[]>; links?: Link[] },
  parent: ReturnType<typeof context.active>,
  run: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await run(span);
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span per webhook request (SERVER), continuing a `traceparent` the request carries. */
export function traceWebhookRequests<Req extends IncomingMessage, Res extends ServerResponse>(
  handle: (req: Req, res: Res) => Promise<void>,
): (req: Req, res: Res) => Promise<void> {
  if (!enabled) return handle;
  const attributes = { 'http.request.method': 'POST', 'http.route': '/webhooks' };
  return (req, res) =>
    inSpan(
      'POST /webhooks',
      { kind: SpanKind.SERVER, attributes },
      propagation.extract(ROOT_CONTEXT, req.headers),
      async (span) => {
        await handle(req, res);
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      },
    );
}

/** A span around the signature check, whose `tally.signature.ok` says how it ended. */
export function traceVerification<Args extends unknown[], Result extends { ok: boolean }>(
  verify: (...args: Args) => Result,
): (...args: Args) => Result {
  if (!enabled) return verify;
  return (...args) =>
    tracer.startActiveSpan('tally.webhook.verify', (span) => {
      const result = verify(...args);
      span.setAttribute('tally.signature.ok', result.ok);
      span.end();
      return result;
    });
}

/** The active span's context, for a group-commit flush to link to; undefined with tracing off. */
export function activeSpanContext(): SpanContext | undefined {
  return enabled ? trace.getActiveSpan()?.spanContext() : undefined;
}

/**
 * A span per group-commit flush: one statement storing the deliveries of several requests. It is a child of
 * the first request's span and links to every request's.
 */
export function traceFlushes<Item extends { spanContext?: SpanContext }>(
  flush: (batch: Item[]) => Promise<void>,
): (batch: Item[]) => Promise<void> {
  if (!enabled) return flush;
  return (batch) => {
    const contexts = batch.flatMap((item) => (item.spanContext ? [item.spanContext] : []));
    const first = contexts[0];
    const parent = first ? trace.setSpanContext(ROOT_CONTEXT, first) : ROOT_CONTEXT;
    const options = {
      attributes: { 'tally.batch.size': batch.length },
      links: contexts.map((spanContext) => ({ context: spanContext })),
    };
    return inSpan('tally.ingest.flush', options, parent, () => flush(batch));
  };
}

/**
 * Writes the active span's `traceparent` (and `tracestate`) into a delivery's stored headers, so the worker
 * batch that projects it links back to the request that stored it.
 */
export function keepTraceContext(headers: Record<string, string>): void {
  if (enabled) propagation.inject(context.active(), headers);
}

/** The span context a stored delivery's `traceparent` names, if it is a valid one. */
function storedSpanContext(traceparent: string | null): SpanContext | undefined {
  if (!traceparent) return undefined;
  return trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
}

/** A span per worker batch, naming its event ids and linking to the request that stored each delivery. */
export function traceWorkerBatch<T>(
  events: { event_id: string | null; traceparent: string | null }[],
  project: () => Promise<T>,
): Promise<T> {
  if (!enabled || events.length === 0) return project();
  const links = events.flatMap((event) => {
    const stored = storedSpanContext(event.traceparent);
    return stored ? [{ context: stored }] : [];
  });
  const attributes = {
    'tally.batch.size': events.length,
    'tally.event_ids': events.map((event) => event.event_id ?? ''),
  };
  return inSpan('tally.worker.batch', { attributes, links }, ROOT_CONTEXT, project);
}

/** A span per pg-boss job (or per fetched batch, for a queue handled a batch at a time). */
export function traceJob<T>(queue: string, jobIds: string[], run: () => Promise<T>): Promise<T> {
  if (!enabled) return run();
  const attributes = {
    'messaging.system': 'pg-boss',
    'messaging.destination.name': queue,
    'tally.job_ids': jobIds,
  };
  return inSpan(`job ${queue}`, { kind: SpanKind.CONSUMER, attributes }, ROOT_CONTEXT, run);
}

/** A span per provider API exchange (CLIENT), its retries included. */
export function traceProviderCalls<Rest extends unknown[], Result>(
  send: (method: string, path: string, ...rest: Rest) => Promise<Result>,
): (method: string, path: string, ...rest: Rest) => Promise<Result> {
  if (!enabled) return send;
  return (method, path, ...rest) => {
    const attributes = { 'http.request.method': method, 'url.path': path.split('?')[0] ?? path };
    return inSpan(`provider ${method}`, { kind: SpanKind.CLIENT, attributes }, context.active(), () =>
      send(method, path, ...rest),
    );
  };
}
