import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { Counter, Histogram } from 'prom-client';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { keepTraceContext, traceVerification, traceWebhookRequests } from '../tracing/spans.ts';
import { parseEnvelope } from './envelope.ts';
import { createDeliveryWriter } from './groupCommit.ts';
import type { NewEvent } from './queries.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from './signature.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const KEPT_HEADERS = [TIMESTAMP_HEADER, SIGNATURE_HEADER, 'content-type', 'user-agent'];

/** What the webhook route needs; the app passes its own deps, which have these and more. */
export type WebhookDeps = {
  config: Pick<Config, 'WEBHOOK_SECRETS' | 'WEBHOOK_TOLERANCE_SECONDS'>;
  pool: Pool;
  log: Logger;
  metrics: { deliveries: Counter<'outcome'>; ackSeconds: Histogram<'status'> };
  now: () => Date;
};

/** A request whose body `readWebhookBody` has read: a Buffer, or undefined when it had none. */
export type WebhookRequest = IncomingMessage & { body?: unknown };
export type WebhookHandler = (req: WebhookRequest, res: ServerResponse) => Promise<void>;
type Next = (err?: unknown) => void;

// body-parser's raw reader works on plain Node requests, so Express and the direct listener (api/app.ts)
// share its limit, Content-Encoding handling and errors.
const readRawBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });
// An error the direct listener met before Express saw the request (the body failed to read): the request is
// then handed to Express, and the app's one error handler words the answer.
const earlierErrors = new WeakMap<IncomingMessage, unknown>();

/** Reads the raw body into `req.body` (up to 1 MiB), or passes on the error the direct listener met. */
export function readWebhookBody(req: WebhookRequest, res: ServerResponse, next: Next): void {
  if (earlierErrors.has(req)) {
    next(earlierErrors.get(req));
    return;
  }
  readRawBody(req, res, next);
}

/** Keeps an error for `readWebhookBody` to pass on when the direct listener hands this request to Express. */
export function keepWebhookError(req: IncomingMessage, err: unknown): void {
  earlierErrors.set(req, err);
}

// The app's error body, written here so ingest depends on nothing of the API it is mounted in. Written with
// writeHead/end rather than res.json: the same bytes, without Express's per-response work (and no ETag).
function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
const refuse = (res: ServerResponse, status: number, code: string, message: string) =>
  answer(res, status, { error: { code, message } });

/**
 * Verify on the raw body, parse the envelope, store in one statement (shared with concurrent deliveries:
 * group commit), answer. Nothing else. Plain Node request and response, so the same handler
 * serves Express (tests, supertest) and the web role's direct listener.
 */
export function createWebhookHandler(deps: WebhookDeps): WebhookHandler {
  const writer = createDeliveryWriter(deps.pool);
  const verify = traceVerification(verifySignature);
  const secrets = deps.config.WEBHOOK_SECRETS ?? [];
  return traceWebhookRequests(async (req, res) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.ackSeconds.observe({ status: String(res.statusCode) }, seconds);
    });
    // A first deployment, before the provider's publisher (and so its secret) exists: nothing can be
    // verified, and a 503 has the provider deliver it again once the secret is set.
    if (secrets.length === 0) {
      deps.metrics.deliveries.inc({ outcome: 'no_secret' });
      refuse(res, 503, 'webhook_secret_unset', 'WEBHOOK_SECRETS is not set yet: not stored; retry later');
      return;
    }
    const rawBody: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const receivedAt = deps.now();

    const check = verify({
      secrets,
      timestamp: headerOf(req, TIMESTAMP_HEADER),
      signature: headerOf(req, SIGNATURE_HEADER),
      rawBody,
      now: receivedAt,
      toleranceSeconds: deps.config.WEBHOOK_TOLERANCE_SECONDS,
    });
    if (!check.ok) {
      deps.metrics.deliveries.inc({ outcome: 'unauthorized' });
      refuse(res, 401, 'signature_invalid', check.reason);
      return;
    }

    const body = parseJson(rawBody);
    if (body === undefined) {
      deps.metrics.deliveries.inc({ outcome: 'invalid_json' });
      refuse(res, 400, 'invalid_json', 'body is not valid UTF-8 JSON');
      return;
    }

    const event = toNewEvent(req, rawBody, body, receivedAt);
    const outcome = await writer.write(event).catch((err: unknown) => {
      deps.log.error(err, 'POST /webhooks failed: delivery not stored; retry later');
      return 'unavailable' as const;
    });
    deps.metrics.deliveries.inc({ outcome });
    if (outcome === 'unavailable') {
      refuse(res, 503, 'storage_unavailable', 'delivery not stored; retry later');
      return;
    }
    if (outcome === 'quarantined')
      deps.log.warn({ eventId: event.eventId, reason: event.quarantineReason }, 'delivery quarantined');
    if (outcome === 'conflict')
      deps.log.warn({ eventId: event.eventId }, 'event id redelivered with a different body');
    answer(res, 200, { received: true, event_id: event.eventId, duplicate: outcome === 'duplicate' });
  });
}

// What Express's req.get returns for these names: Node joins a repeated header into one string (only
// set-cookie stays an array), and none of them is Referer, req.get's one special case.
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body as text and parsed; undefined unless it is UTF-8 JSON. */
function parseJson(rawBody: Buffer): { text: string; value: unknown } | undefined {
  try {
    const text = utf8.decode(rawBody);
    return { text, value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function toNewEvent(
  req: IncomingMessage,
  rawBody: Buffer,
  body: { text: string; value: unknown },
  receivedAt: Date,
): NewEvent {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headerOf(req, name);
    if (value !== undefined) headers[name] = value;
  }
  keepTraceContext(headers);
  const common = { headers, rawBody, receivedAt, bodySha256: createHash('sha256').update(rawBody).digest() };
  const parsed = parseEnvelope(body.value, body.text);
  if (!parsed.ok) {
    // Quarantined rows keep only the raw bytes: the parsed body may be what made it invalid.
    return {
      ...common,
      eventId: null,
      eventName: null,
      accountId: null,
      accountType: null,
      quarantineReason: parsed.reason,
    };
  }
  const { envelope } = parsed;
  return {
    ...common,
    eventId: envelope.id,
    eventName: envelope.event_name,
    accountId: envelope.account_id,
    accountType: envelope.account_type,
    quarantineReason: null,
  };
}
