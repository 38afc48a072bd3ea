import type { Express } from 'express';
import request from 'supertest';
import { sign } from '../../src/ingest/signature.ts';
import { SECRETS } from './app.ts';

let counter = 0;

/** A payment event envelope as the provider sends it; `overrides` replace top-level fields. */
export function paymentEvent(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    id: `evt_test_${process.pid}_${counter}`,
    account_id: 'acc_sub_1',
    account_type: 'test',
    platform_account_id: 'acc_platform_1',
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    event_name: 'payment.created',
    data: { id: `py_test_${counter}`, amount: 1234, currency: 'usd', status: 'succeeded', fees: [] },
    ...overrides,
  };
}

export function unixSeconds(date = new Date()): string {
  return String(Math.floor(date.getTime() / 1000));
}

/** POSTs a raw body signed with `secret` at `timestamp`, exactly as the provider would. */
export function postSigned(
  app: Express,
  body: string | Buffer | object,
  options: { secret?: string; timestamp?: string; signature?: string } = {},
) {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const timestamp = options.timestamp ?? unixSeconds();
  const signature = options.signature ?? sign(options.secret ?? SECRETS[0], timestamp, raw);
  return (
    request(app)
      .post('/webhooks')
      // superagent would JSON-encode a Buffer sent as application/json; raw bytes go as a stream type.
      .set('content-type', Buffer.isBuffer(raw) ? 'application/octet-stream' : 'application/json')
      .set('JUSTIFI-TIMESTAMP', timestamp)
      .set('JUSTIFI-SIGNATURE', signature)
      .send(raw)
  );
}
