import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { findEvent } from '../../src/ingest/deliveryReadQueries.ts';
import { sign } from '../../src/ingest/signature.ts';
import { processStoredEvents } from '../../src/projection/processStoredEvent.ts';
import { API_TOKEN, SECRETS, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned, unixSeconds } from '../helpers/deliveries.ts';
import { drain } from '../helpers/fixtures.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.pool.query('truncate events cascade');
});

// What the API and the console show: the stored raw bytes, parsed.
const bodyOf = async (eventId: string) => (await findEvent(t.pool, { eventId }))?.body;

const countEvents = async () =>
  (await t.pool.query('select count(*)::int as n from events')).rows[0].n as number;
// The raw log is the worker's queue: a stored delivery waiting to be projected is a row in status `received`.
const waitingDeliveries = async () =>
  (await t.pool.query(`select id from events where status = 'received' order by id`)).rows.map(
    (row) => row.id,
  );

describe('a signed delivery', () => {
  it('is stored with its envelope fields and raw bytes, and waits for the worker', async () => {
    const event = paymentEvent();
    const raw = JSON.stringify(event);
    const response = await postSigned(t.app, raw);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true, event_id: event.id, duplicate: false });

    const { rows } = await t.pool.query('select * from events');
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({
      event_id: event.id,
      event_name: 'payment.created',
      account_id: 'acc_sub_1',
      account_type: 'test',
      status: 'received',
      quarantine_reason: null,
    });
    expect(row.raw_body.toString('utf8')).toBe(raw);
    expect(row.body_sha256.equals(createHash('sha256').update(raw).digest())).toBe(true);
    // The body is stored once, as the raw bytes; readers parse them.
    expect(Object.keys(row)).not.toContain('body');
    expect(await bodyOf(event.id)).toEqual(event);
    expect(Object.keys(row.headers)).toEqual(
      expect.arrayContaining(['justifi-timestamp', 'justifi-signature']),
    );
    expect(await waitingDeliveries()).toEqual([row.id]);
  });

  it('signed with the previous (rotated) secret is accepted', async () => {
    const response = await postSigned(t.app, paymentEvent(), { secret: SECRETS[1] });
    expect(response.status).toBe(200);
  });

  it('with an ISO-8601 timestamp header is accepted', async () => {
    const response = await postSigned(t.app, paymentEvent(), { timestamp: new Date().toISOString() });
    expect(response.status).toBe(200);
  });
});

// The provider's own SDK test events, byte for byte, signed as their suites expect
// (test/fixtures/recorded/sdk-signature-vector.jsonl). `alter` changes one byte of the body; `unlisted` are payment fields the seed
// does not name, which Tally must keep. (The Ruby event has no `amount_returned`/`returned`: it predates them.)
const sdkVectors = [
  {
    file: 'sdk-signature-vector.jsonl',
    secret: 'justifi-test-key',
    eventId: 'evt_123abc',
    paymentId: 'py_abc123',
    alter: ['"amount":15152', '"amount":15153'],
    unlisted: ['amount_returned', 'returned', 'disputes', 'application_fee'],
  },
  {
    file: 'ruby-sdk-signature-vector.jsonl',
    secret: 'sigk_59MIs5qN2tBrsNw6JzIXlU',
    eventId: 'evt_4vt3adCPYsyYmP64nQD6BD',
    paymentId: 'py_1xy1fjX7gPECfg6d5839iU',
    alter: ['"amount":1000', '"amount":1001'],
    unlisted: ['disputes', 'application_fee', 'balance', 'disputed', 'refunded'],
  },
] as const;

describe.each(sdkVectors)('the provider SDK test vector $file', (vector) => {
  const recorded = JSON.parse(
    readFileSync(new URL(`../fixtures/recorded/${vector.file}`, import.meta.url), 'utf8'),
  );
  const headers = {
    timestamp: recorded.headers['justifi-timestamp'],
    signature: recorded.headers['justifi-signature'],
  };
  // A clock 23 s after the recorded signature: the default tolerance admits it, as for a live delivery.
  const justAfterSigning = () => new Date(Number(headers.timestamp) * 1000 + 23_000);

  it('is accepted with its secret, stored byte for byte, and its payment keeps the unlisted fields', async () => {
    const vectorApp = await startTestApp({
      webhookSecrets: [vector.secret],
      now: justAfterSigning,
      worker: true,
    });
    try {
      const response = await postSigned(vectorApp.app, recorded.body, headers);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ received: true, event_id: vector.eventId, duplicate: false });
      await drain(vectorApp);
      const { rows } = await vectorApp.pool.query('select raw_body, status, error from events');
      expect(rows).toHaveLength(1);
      expect(rows[0].raw_body.toString('utf8')).toBe(recorded.body);
      expect(rows[0]).toMatchObject({ status: 'processed', error: null });
      const sent = JSON.parse(recorded.body).data;
      const payment = await vectorApp.pool.query('select snapshot from payments where id = $1', [
        vector.paymentId,
      ]);
      const shown = (await findEvent(vectorApp.pool, { eventId: vector.eventId }))?.body as { data: object };
      for (const field of vector.unlisted) {
        expect(shown.data, field).toHaveProperty(field, sent[field]);
        expect(payment.rows[0].snapshot[field], field).toEqual(sent[field]);
      }
    } finally {
      await vectorApp.close();
    }
  });

  it('is refused with another secret or with one byte of the body changed, and nothing is stored', async () => {
    const otherSecret = await startTestApp({
      env: { WEBHOOK_SECRETS: 'not-the-vector-secret-0123456789abc' },
      now: justAfterSigning,
    });
    try {
      expect((await postSigned(otherSecret.app, recorded.body, headers)).status).toBe(401);
      expect((await otherSecret.pool.query('select count(*)::int as n from events')).rows[0].n).toBe(0);
    } finally {
      await otherSecret.close();
    }
    const rightSecret = await startTestApp({
      webhookSecrets: [vector.secret],
      now: justAfterSigning,
    });
    try {
      const [from, to] = vector.alter;
      const altered = recorded.body.replace(from, to);
      expect(Buffer.byteLength(altered)).toBe(Buffer.byteLength(recorded.body));
      expect(altered).not.toBe(recorded.body);
      expect((await postSigned(rightSecret.app, altered, headers)).status).toBe(401);
      expect((await rightSecret.pool.query('select count(*)::int as n from events')).rows[0].n).toBe(0);
    } finally {
      await rightSecret.close();
    }
  });
});

describe('an unsigned or badly signed delivery gets 401 and nothing is stored', () => {
  const raw = JSON.stringify(paymentEvent());
  const now = unixSeconds();
  test.each([
    ['no signature headers', () => request(t.app).post('/webhooks').send(raw)],
    [
      'a timestamp but no signature',
      () => request(t.app).post('/webhooks').set('JUSTIFI-TIMESTAMP', now).send(raw),
    ],
    ['the wrong secret', () => postSigned(t.app, raw, { secret: 'whsec_wrong' })],
    [
      'a tampered body',
      () =>
        postSigned(t.app, raw, {
          signature: sign(SECRETS[0], now, raw.replace('1234', '1235')),
          timestamp: now,
        }),
    ],
    [
      'a whitespace change in the body',
      () =>
        postSigned(t.app, raw, { signature: sign(SECRETS[0], now, raw.replace(',', ', ')), timestamp: now }),
    ],
    [
      'a signature over another timestamp',
      () =>
        postSigned(t.app, raw, { signature: sign(SECRETS[0], String(Number(now) - 1), raw), timestamp: now }),
    ],
    [
      'a timestamp older than the tolerance',
      () => postSigned(t.app, raw, { timestamp: unixSeconds(new Date(Date.now() - 172_801_000)) }),
    ],
    [
      'a timestamp further ahead than the tolerance',
      // 30 s beyond: the timestamp is cut to whole seconds and the request takes time, both of which bring a
      // future timestamp closer to the server's clock.
      () => postSigned(t.app, raw, { timestamp: unixSeconds(new Date(Date.now() + 172_830_000)) }),
    ],
    ['an unreadable timestamp', () => postSigned(t.app, raw, { timestamp: 'yesterday' })],
    ['a signature that is not hex', () => postSigned(t.app, raw, { signature: 'z'.repeat(64) })],
  ])('%s', async (_name, send) => {
    const response = await send();
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('signature_invalid');
    expect(await countEvents()).toBe(0);
    expect(await waitingDeliveries()).toEqual([]);
  });
});

describe('bodies that are not a valid envelope', () => {
  it('signed but not JSON gets 400 and nothing is stored', async () => {
    const response = await postSigned(t.app, '{"id": "evt_1", ');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_json');
    expect(await countEvents()).toBe(0);
  });

  it('signed but not valid UTF-8 gets 400', async () => {
    const response = await postSigned(t.app, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(response.status).toBe(400);
  });

  it('larger than 1 MiB gets 413 and nothing is stored', async () => {
    const big = JSON.stringify(paymentEvent({ padding: 'x'.repeat(1024 * 1024) }));
    const response = await postSigned(t.app, big);
    expect(response.status).toBe(413);
    expect(response.body.error).toEqual({ code: 'payload_too_large', message: 'body exceeds 1 MiB' });
    expect(await countEvents()).toBe(0);
  });

  it('signed JSON that fails the envelope schema is quarantined, acknowledged, and stored once', async () => {
    const { account_type: _dropped, ...invalid } = paymentEvent();
    const first = await postSigned(t.app, invalid);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, event_id: null, duplicate: false });
    const again = await postSigned(t.app, invalid);
    expect(again.body.duplicate).toBe(true);

    const { rows } = await t.pool.query('select id, status, quarantine_reason, raw_body from events');
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('quarantined');
    expect(rows[0].quarantine_reason).toContain('account_type');
    // Its bytes are kept as evidence, never shown parsed: they may not be JSON at all.
    expect((await findEvent(t.pool, { rowId: rows[0].id }))?.body).toBeNull();
    expect(rows[0].raw_body.toString()).toBe(JSON.stringify(invalid));
    expect(await waitingDeliveries()).toEqual([]);
  });

  it('signed JSON holding a NUL character is quarantined rather than refused by Postgres', async () => {
    const response = await postSigned(t.app, paymentEvent({ data: { note: 'a\u0000b' } }));
    expect(response.status).toBe(200);
    const { rows } = await t.pool.query('select status, quarantine_reason from events');
    expect(rows[0]).toEqual({
      status: 'quarantined',
      quarantine_reason: 'contains a NUL character or an unpaired surrogate',
    });
  });
});

describe('bodies Postgres cannot store as jsonb', () => {
  it('a body starting with a UTF-8 byte order mark is stored byte for byte and parsed without it', async () => {
    const event = paymentEvent();
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(event))]);
    const response = await postSigned(t.app, raw);
    expect(response.body).toEqual({ received: true, event_id: event.id, duplicate: false });
    const { rows } = await t.pool.query('select id, status, raw_body from events');
    expect(rows[0].status).toBe('received');
    expect(rows[0].raw_body.equals(raw)).toBe(true);
    expect(await bodyOf(event.id)).toEqual(event);
    // The worker parses the same bytes past the mark.
    expect(await processStoredEvents(t, [rows[0].id])).toEqual(new Map());
    const stored = await t.pool.query('select status from events');
    expect(stored.rows[0]).toEqual({ status: 'processed' });
    expect(await bodyOf(event.id)).toEqual(event);
  });

  it('bodies of several sizes and scripts in one batch each keep their own bytes', async () => {
    const events = ['é', '日本語', '🙂', 'x'.repeat(5000), ''].map((note) =>
      paymentEvent({ data: { id: `py_${note.length}_${note.codePointAt(0) ?? 0}`, note } }),
    );
    const responses = await Promise.all(events.map((event) => postSigned(t.app, event)));
    expect(responses.map((response) => response.status)).toEqual(Array(events.length).fill(200));
    const { rows } = await t.pool.query('select event_id, raw_body from events');
    for (const event of events) {
      const row = rows.find((stored) => stored.event_id === event.id);
      expect(row.raw_body.toString('utf8')).toBe(JSON.stringify(event));
      expect(await bodyOf(event.id)).toEqual(event);
    }
  });

  it('a valid envelope holding an unpaired surrogate is quarantined, not refused with 503 forever', async () => {
    const raw = JSON.stringify(paymentEvent()).replace('"data":{', '"data":{"note":"\\ud800",');
    expect(raw).toContain('\\ud800');
    const response = await postSigned(t.app, raw);
    expect(response.status).toBe(200);
    const { rows } = await t.pool.query('select status, raw_body from events');
    expect(rows[0].status).toBe('quarantined');
    expect(rows[0].raw_body.toString()).toBe(raw);
  });
});

describe('redeliveries', () => {
  it('a duplicate delivery is acknowledged and stored once, waiting once for the worker', async () => {
    const event = paymentEvent();
    const raw = JSON.stringify(event);
    expect((await postSigned(t.app, raw)).body.duplicate).toBe(false);
    // The provider re-signs a retry with a new timestamp; the body is the same.
    const retry = await postSigned(t.app, raw, { timestamp: unixSeconds(new Date(Date.now() + 60_000)) });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ received: true, event_id: event.id, duplicate: true });
    expect(await countEvents()).toBe(1);
    expect(await waitingDeliveries()).toHaveLength(1);
  });

  it('the same event posted 20 times at once is stored once', async () => {
    const raw = JSON.stringify(paymentEvent());
    const responses = await Promise.all(Array.from({ length: 20 }, () => postSigned(t.app, raw)));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(responses.filter((response) => response.body.duplicate === false)).toHaveLength(1);
    expect(await countEvents()).toBe(1);
    expect(await waitingDeliveries()).toHaveLength(1);
  });

  it('the same id with a different body is kept aside as a conflict; the first body stays', async () => {
    const event = paymentEvent();
    await postSigned(t.app, event);
    const changed = { ...event, data: { ...event.data, amount: 9999 } };
    const response = await postSigned(t.app, changed);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true, event_id: event.id, duplicate: false });
    await postSigned(t.app, changed);

    expect(await countEvents()).toBe(1);
    expect(await bodyOf(event.id)).toMatchObject({ data: { amount: 1234 } });
    const conflicts = await t.pool.query('select event_id, raw_body from event_conflicts');
    expect(conflicts.rows).toHaveLength(1);
    expect(conflicts.rows[0].raw_body.toString()).toBe(JSON.stringify(changed));
    expect(await waitingDeliveries()).toHaveLength(1);
  });
});

describe('metrics', () => {
  it('count deliveries by outcome and time the acknowledgement', async () => {
    await postSigned(t.app, paymentEvent());
    await postSigned(t.app, paymentEvent(), { secret: 'wrong' });
    const response = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/tally_webhook_deliveries_total\{outcome="accepted"\} \d+/);
    expect(response.text).toMatch(/tally_webhook_deliveries_total\{outcome="unauthorized"\} \d+/);
    expect(response.text).toMatch(/tally_webhook_ack_seconds_count\{status="200"\} \d+/);
    expect(response.text).toMatch(/tally_events\{status="received"\} 1/);
  });
});
