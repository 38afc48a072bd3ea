import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';

const READ_TOKEN = 'read-token-0123456789abcdef';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKENS: `viewer:read:${READ_TOKEN}` } });
});
afterAll(() => t.close());

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const admin = as(API_TOKEN);
const reader = as(READ_TOKEN);
const create = (body: unknown) =>
  request(t.app)
    .post('/api/subscriptions')
    .set(admin)
    .send(body as object);

describe('POST /api/subscriptions', () => {
  it('answers the subscription with its secret once, then never again', async () => {
    const created = await create({
      url: 'http://127.0.0.1:9/hook',
      types: ['payment.*'],
      description: 'orders',
    });
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(data.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(data).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      types: ['payment.*'],
      description: 'orders',
      enabled: true,
      state: 'active',
      disabled_reason: null,
      lag_seconds: 0,
      pending: 0,
      failed: 0,
      attempts: {},
    });
    expect(created.body.id).toBe(data.id);
    expect(data.id).toMatch(/^sub_\d+$/);
    for (const token of [admin, reader]) {
      const read = await request(t.app).get(`/api/subscriptions/${data.id}`).set(token).expect(200);
      expect(read.body.data.secret).toBeUndefined();
      expect(JSON.stringify(read.body)).not.toContain(data.secret.slice(6));
      const listed = await request(t.app).get('/api/subscriptions').set(token).expect(200);
      expect(listed.body.data.map((item: { id: string }) => item.id)).toContain(data.id);
      expect(JSON.stringify(listed.body)).not.toContain(data.secret.slice(6));
    }
  });

  it('allows loopback and private addresses, the merchant’s own services', async () => {
    for (const url of [
      'http://localhost:3001/x',
      'https://10.0.0.5/hook',
      'http://[::1]:8080/',
      'http://192.168.1.20/',
    ]) {
      expect((await create({ url })).status).toBe(201);
    }
  });

  it.each([
    ['ftp://example.com/hook', /^url: must be an http or https URL/],
    ['not a url', /^url: must be an absolute http or https URL/],
    ['http://169.254.169.254/latest/meta-data', /^url: must not be a link-local or metadata address/],
    ['http://169.254.10.1/', /^url: must not be a link-local/],
    ['http://[fe80::1]/', /^url: must not be a link-local/],
    ['http://[fd00:ec2::254]/', /^url: must not be a link-local or metadata address/],
    ['http://[::ffff:169.254.169.254]/', /^url: must not be a link-local/],
    ['http://metadata.google.internal/computeMetadata/v1/', /^url: must not be a cloud metadata address/],
    ['http://user:pass@example.com/', /^url: must not carry a user name or password/],
  ])('refuses the url %s, naming the field', async (url, message) => {
    const answer = await create({ url });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('invalid_parameter');
    expect(answer.body.error.message).toMatch(message);
  });

  it('refuses an unknown type pattern, a missing url, an unknown field and a broken body, naming each', async () => {
    const badType = await create({ url: 'http://127.0.0.1/', types: ['payment.exploded'] });
    expect([badType.status, badType.body.error.message]).toEqual([
      422,
      expect.stringMatching(/^types: unknown change type/),
    ]);
    const notList = await create({ url: 'http://127.0.0.1/', types: 'payment.*' });
    expect([notList.status, notList.body.error.message]).toEqual([422, expect.stringMatching(/^types: /)]);
    const missing = await create({ types: [] });
    expect([missing.status, missing.body.error.message]).toEqual([422, expect.stringMatching(/^url: /)]);
    const extra = await create({ url: 'http://127.0.0.1/', secret: 'mine' });
    expect([extra.status, extra.body.error.message]).toEqual([422, expect.stringMatching(/secret/)]);
    const broken = await request(t.app)
      .post('/api/subscriptions')
      .set(admin)
      .set('content-type', 'application/json')
      .send('{"url":');
    expect([broken.status, broken.body.error.code]).toEqual([400, 'invalid_json']);
  });

  it('is refused to a read token, which cannot change anything either', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/' });
    const id = body.data.id;
    const attempts = [
      request(t.app).post('/api/subscriptions').set(reader).send({ url: 'http://127.0.0.1/' }),
      request(t.app).patch(`/api/subscriptions/${id}`).set(reader).send({ enabled: false }),
      request(t.app).delete(`/api/subscriptions/${id}`).set(reader),
      request(t.app).post(`/api/subscriptions/${id}/rotate-secret`).set(reader),
      request(t.app).post(`/api/subscriptions/${id}/replay`).set(reader).send({}),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect([answer.status, answer.body.error.code]).toEqual([403, 'forbidden']);
      expect(JSON.stringify(answer.body)).not.toContain('whsec_');
    }
    const after = await request(t.app).get(`/api/subscriptions/${id}`).set(reader).expect(200);
    expect(after.body.data.enabled).toBe(true);
  });
});

describe('changing a subscription', () => {
  it('PATCH changes url and types, disables and enables; a bad field is 422 naming it', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/' });
    const path = `/api/subscriptions/${body.data.id}`;
    const changed = await request(t.app)
      .patch(path)
      .set(admin)
      .send({ url: 'http://127.0.0.1:10/', types: ['refund.created', 'finding.*'] })
      .expect(200);
    expect(changed.body.data).toMatchObject({
      url: 'http://127.0.0.1:10/',
      types: ['refund.created', 'finding.*'],
    });
    const disabled = await request(t.app).patch(path).set(admin).send({ enabled: false }).expect(200);
    expect(disabled.body.data).toMatchObject({
      enabled: false,
      state: 'disabled',
      disabled_reason: 'manual',
    });
    expect(Date.parse(disabled.body.data.disabled_at)).toBeGreaterThan(Date.now() - 60_000);
    const enabled = await request(t.app).patch(path).set(admin).send({ enabled: true }).expect(200);
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      state: 'active',
      disabled_reason: null,
      disabled_at: null,
    });
    for (const [field, value] of [
      ['enabled', 'yes'],
      ['url', 'http://169.254.169.254/'],
      ['types', ['nope']],
    ] as const) {
      const refused = await request(t.app)
        .patch(path)
        .set(admin)
        .send({ [field]: value });
      expect([refused.status, refused.body.error.message]).toEqual([
        422,
        expect.stringMatching(new RegExp(`^${field}: `)),
      ]);
    }
  });

  it('rotate-secret answers a new secret and keeps the old one signing for 24 hours', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/' });
    const rotated = await request(t.app)
      .post(`/api/subscriptions/${body.data.id}/rotate-secret`)
      .set(admin)
      .expect(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(body.data.secret);
    const overlap = Date.parse(rotated.body.data.previous_secret_until) - Date.now();
    expect(overlap).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);
    const stored = await t.pool.query('select secret, previous_secret from subscriptions where id = $1', [
      Number(body.data.id.slice(4)),
    ]);
    expect(stored.rows[0]).toEqual({ secret: rotated.body.data.secret, previous_secret: body.data.secret });
  });

  it('DELETE removes it; an unknown or malformed id is 404', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/' });
    await request(t.app).delete(`/api/subscriptions/${body.data.id}`).set(admin).expect(204);
    for (const id of [body.data.id, 'sub_0', 'sub_99999999999999999999', 'fnd_1', 'sub_%00']) {
      const answer = await request(t.app).get(`/api/subscriptions/${id}`).set(admin);
      expect([answer.status, answer.body.error.code]).toEqual([404, 'resource_not_found']);
    }
    await request(t.app).delete(`/api/subscriptions/${body.data.id}`).set(admin).expect(404);
    await request(t.app).post(`/api/subscriptions/${body.data.id}/rotate-secret`).set(admin).expect(404);
  });

  it('replay refuses an after that is not a cursor of the feed, naming it', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/' });
    for (const after of ['chg_12', '12', 42]) {
      const answer = await request(t.app)
        .post(`/api/subscriptions/${body.data.id}/replay`)
        .set(admin)
        .send({ after });
      expect(answer.status).toBe(422);
      expect(answer.body.error.message).toMatch(/^after: /);
    }
  });
});
