import { createHash } from 'node:crypto';
import express, { type Request, type Router } from 'express';
import type { AppDeps } from '../api/deps.ts';
import { HttpError } from '../api/errors.ts';
import { parseEnvelope } from './envelope.ts';
import { createDeliveryWriter } from './groupCommit.ts';
import type { NewEvent } from './queries.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignature } from './signature.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const KEPT_HEADERS = [TIMESTAMP_HEADER, SIGNATURE_HEADER, 'content-type', 'user-agent'];

/**
 * Verify on the raw body, parse the envelope, store and enqueue in one transaction (shared with concurrent
 * deliveries: group commit), answer. Nothing else.
 */
export function webhookRoutes(deps: AppDeps): Router {
  const router = express.Router();
  const writer = createDeliveryWriter(deps.pool, deps.boss);
  router.post('/webhooks', express.raw({ type: () => true, limit: BODY_LIMIT_BYTES }), async (req, res) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.ackSeconds.observe({ status: String(res.statusCode) }, seconds);
    });
    const rawBody: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const receivedAt = deps.now();

    const check = verifySignature({
      secrets: deps.config.WEBHOOK_SECRETS ?? [],
      timestamp: req.get(TIMESTAMP_HEADER),
      signature: req.get(SIGNATURE_HEADER),
      rawBody,
      now: receivedAt,
      toleranceSeconds: deps.config.WEBHOOK_TOLERANCE_SECONDS,
    });
    if (!check.ok) {
      deps.metrics.deliveries.inc({ outcome: 'unauthorized' });
      throw new HttpError(401, 'signature_invalid', check.reason);
    }

    const body = parseJson(rawBody);
    if (body === undefined) {
      deps.metrics.deliveries.inc({ outcome: 'invalid_json' });
      throw new HttpError(400, 'invalid_json', 'body is not valid UTF-8 JSON');
    }

    const event = toNewEvent(req, rawBody, body, receivedAt);
    const outcome = await writer.write(event).catch((err: unknown) => {
      deps.metrics.deliveries.inc({ outcome: 'unavailable' });
      throw new HttpError(503, 'storage_unavailable', 'delivery not stored; retry later', { cause: err });
    });
    deps.metrics.deliveries.inc({ outcome });
    if (outcome === 'quarantined')
      deps.log.warn({ eventId: event.eventId, reason: event.quarantineReason }, 'delivery quarantined');
    if (outcome === 'conflict')
      deps.log.warn({ eventId: event.eventId }, 'event id redelivered with a different body');
    res.status(200).json({ received: true, event_id: event.eventId, duplicate: outcome === 'duplicate' });
  });
  return router;
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
  req: Request,
  rawBody: Buffer,
  body: { text: string; value: unknown },
  receivedAt: Date,
): NewEvent {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
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
      bodyJson: null,
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
    // The raw text goes to jsonb as is: no second serialization on the hot path.
    bodyJson: body.text,
    quarantineReason: null,
  };
}
