import { createHash } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Counter, Histogram } from 'prom-client';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from '../queue/boss.ts';
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
  boss: Boss;
  log: Logger;
  metrics: { deliveries: Counter<'outcome'>; ackSeconds: Histogram<'status'> };
  now: () => Date;
};

// The app's error body, written here so ingest depends on nothing of the API it is mounted in.
const refuse = (res: Response, status: number, code: string, message: string) =>
  res.status(status).json({ error: { code, message } });

/**
 * Verify on the raw body, parse the envelope, store and enqueue in one transaction (shared with concurrent
 * deliveries: group commit), answer. Nothing else.
 */
export function webhookRoutes(deps: WebhookDeps): Router {
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
