import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueNames } from '../../src/queue/queues.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';
import { until, waitFor } from '../helpers/waitFor.ts';

let t: TestApp;
const auth = { Authorization: `Bearer ${API_TOKEN}` };

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the bearer token', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { Authorization: 'Bearer wrong-token-0123456789' }],
    ['a token of another length', { Authorization: 'Bearer x' }],
    ['another scheme', { Authorization: `Basic ${API_TOKEN}` }],
  ])('refuses %s with 401', async (_name, headers) => {
    const response = await request(t.app).get('/api/status').set(headers);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('not_authenticated');
  });

  it('leaves the API disabled, not open, when API_TOKEN is unset', async () => {
    const closed = await startTestApp({ env: { API_TOKEN: undefined } });
    try {
      const response = await request(closed.app).get('/api/status').set(auth);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('api_disabled');
    } finally {
      await closed.close();
    }
  });
});

describe('security headers', () => {
  it.each([
    ['an answer', '/api/status', auth, 200],
    ['a refusal', '/api/status', {}, 401],
    ['an unknown path', '/api/nothing-here', auth, 404],
  ])(
    'are on %s of /api/*: nosniff, no framing, no referrer, HSTS, a policy that runs nothing',
    async (_name, path, headers, status) => {
      const response = await request(t.app).get(path).set(headers);
      expect(response.status).toBe(status);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'none';frame-ancestors 'none';base-uri 'none'",
      );
    },
  );
});

describe('GET /api/status', () => {
  it('counts unprocessed, quarantined and conflicting deliveries and queued jobs', async () => {
    const event = paymentEvent();
    await postSigned(t.app, event);
    await postSigned(t.app, { ...event, data: { changed: true } });
    await postSigned(t.app, paymentEvent());
    await postSigned(t.app, { not: 'an envelope' });
    // Deliveries waiting for the worker are unprocessed events (the raw log is its queue), not jobs.
    expect((await request(t.app).post('/api/jobs/capture-expiry-scan').set(auth).send({})).status).toBe(202);
    // queued_jobs is pg-boss's own count, refreshed by its monitor (every 10 s): wait for it to see the job.
    const response = await waitFor(
      'pg-boss to count the queued job',
      async () => {
        const status = await request(t.app).get('/api/status').set(auth);
        until(status.body.data?.queued_jobs === 1, `queued_jobs ${status.body.data?.queued_jobs}`);
        return status;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(response.status).toBe(200);
    const oldest = await t.pool.query<{ at: Date }>('select min(received_at) as at from events');
    expect(response.body).toEqual({
      id: null,
      type: 'status',
      page_info: null,
      data: {
        unprocessed_events: 2,
        queued_jobs: 1,
        quarantined_events: 1,
        failed_events: 0,
        conflicting_events: 1,
        last_fee_sync_at: null,
        unverified_fee_payments: 0,
        overridden_fees: 0,
        unknown_values: {},
        last_sweep_at: null,
        missed_events_open: 0,
        oldest_kept_body_at: oldest.rows[0]?.at.toISOString(),
        purged_bodies: 0,
        unreconciled_payments: 0,
        oldest_unreconciled_s: null,
        last_payout_sync_at: null,
        payments_awaiting_payout: 0,
        payouts_unmatched_in_bank: 0,
        provider_ledger_failures: [],
        read_replica: null,
        failed_jobs: Object.fromEntries(queueNames.map((name) => [name, 0])),
        subscriptions: [],
      },
    });
  });
});

describe('GET /api/events/:id', () => {
  it('returns the stored delivery in the provider envelope', async () => {
    const event = paymentEvent();
    await postSigned(t.app, event);
    const response = await request(t.app).get(`/api/events/${event.id}`).set(auth);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: event.id,
      type: 'event',
      page_info: null,
      data: {
        id: event.id,
        event_name: 'payment.created',
        status: 'received',
        source: 'webhook',
        body: event,
        conflicts: [],
      },
    });
  });

  it('answers 404 for an unknown id', async () => {
    const response = await request(t.app).get('/api/events/evt_nope').set(auth);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('resource_not_found');
  });
});

describe('POST /api/jobs/:name', () => {
  it('enqueues a registered scheduled job now and answers 202 with its id', async () => {
    const response = await request(t.app)
      .post('/api/jobs/daily-report')
      .set(auth)
      .send({ date: '2026-11-01' });
    expect(response.status).toBe(202);
    expect(response.body.type).toBe('job');
    expect(response.body.data).toMatchObject({ name: 'daily-report', payload: { date: '2026-11-01' } });
    const job = await t.boss.findJobs('daily-report', { id: response.body.id });
    expect(job.map((found) => found.data)).toEqual([{ date: '2026-11-01' }]);
  });

  it('answers 404 for an unknown job, and for a job that is not scheduled', async () => {
    for (const name of ['no-such-job', 'process-event']) {
      const response = await request(t.app).post(`/api/jobs/${name}`).set(auth);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('job_not_found');
      expect(response.body.error.message).toContain('daily-report');
    }
  });

  it('answers 422 naming the field when the payload is invalid', async () => {
    const response = await request(t.app).post('/api/jobs/daily-report').set(auth).send({ date: 'tomorrow' });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'payload_invalid' });
    expect(response.body.error.message).toContain('date');
  });

  it('refuses a JSON body over 16 KiB with 413 saying so', async () => {
    const response = await request(t.app)
      .post('/api/jobs/daily-report')
      .set(auth)
      .send({ date: 'x'.repeat(17 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: { code: 'payload_too_large', message: 'body exceeds 16 KiB' } });
  });

  it.each([
    [
      'retention-purge',
      { account_id: '' },
      'body.account_id: not a field of retention-purge (it takes none)',
    ],
    [
      'fee-configuration-sync',
      { acount_id: 'acc_1' },
      'body.acount_id: not a field of fee-configuration-sync (it takes account_id)',
    ],
    [
      'daily-report',
      { date: '2026-11-01', period: '2026-11', x: 1 },
      'body.period, body.x: not a field of daily-report (it takes date)',
    ],
    [
      'reconcile-stale',
      { '4242424242424242': 1, 'a\u0000b': 2 },
      '2 other fields: not a field of reconcile-stale (it takes none)',
    ],
  ])(
    'refuses a field %s does not take with 400 naming it, and queues nothing',
    async (name, body, message) => {
      const before = (await t.boss.findJobs(name)).length;
      const response = await request(t.app).post(`/api/jobs/${name}`).set(auth).send(body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: { code: 'invalid_parameter', message } });
      expect(await t.boss.findJobs(name)).toHaveLength(before);
    },
  );
});

describe('unknown routes and errors', () => {
  it('answer 404 in the error shape', async () => {
    const response = await request(t.app).get('/nope');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'resource_not_found', message: 'no such endpoint' } });
  });
});
