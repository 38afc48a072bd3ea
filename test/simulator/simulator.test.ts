import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { arrayListing, paginateList } from '../../simulator/paginate.ts';
import { createSimulator, type Simulator } from '../../simulator/server.ts';
import { closeServer, serve } from '../../src/api/serve.ts';
import { sign } from '../../src/ingest/signature.ts';

// The provider simulator, driven over HTTP, held to the seed's rules: authentication, the standard fee
// configuration validation, chaining and lifecycle, pagination, the payment and forwarding request reads,
// and the test controls.

const CLIENT_ID = 'test_client_sim';
const CLIENT_SECRET = 'test_secret_sim';

import type { SimulatedConfiguration } from '../../simulator/feeConfigurationStore.ts';

const ACCOUNT = 'acc_sub_1';
const HOUR = 3600 * 1000;
const MINUTE = 60 * 1000;
const START = new Date('2025-06-01T12:00:00.000Z');

type Configuration = SimulatedConfiguration;
type PageInfo = { has_previous: boolean; has_next: boolean; start_cursor: string; end_cursor: string };

let currentDate: Date;
let sim: Simulator;
let bearer: string;

const advance = (ms: number) => {
  currentDate = new Date(currentDate.getTime() + ms);
};
const at = (msFromNow: number) => new Date(currentDate.getTime() + msFromNow).toISOString();
const path = (suffix = '') => `/v1/sub_accounts/${ACCOUNT}/fee_configurations${suffix}`;

async function issueToken(): Promise<string> {
  const response = await request(sim.app)
    .post('/oauth/token')
    .send({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}
const get = (url: string) => request(sim.app).get(url).set('Authorization', `Bearer ${bearer}`);
const post = (feeType: string, body: Record<string, unknown>) =>
  request(sim.app)
    .post(path(`/${feeType}`))
    .set('Authorization', `Bearer ${bearer}`)
    .send(body);

async function create(feeType: string, body: Record<string, unknown>): Promise<Configuration> {
  const response = await post(feeType, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as Configuration;
}
async function history(feeType: string): Promise<Configuration[]> {
  const response = await get(`${path(`/${feeType}/history`)}?limit=100`);
  expect(response.status).toBe(200);
  return response.body.data as Configuration[];
}
async function activeOf(feeType: string) {
  return get(path(`/${feeType}`));
}

beforeEach(async () => {
  currentDate = START;
  sim = createSimulator({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => currentDate });
  bearer = await issueToken();
});

describe('authentication', () => {
  it('issues an access token for the right client credentials', async () => {
    const response = await request(sim.app)
      .post('/oauth/token')
      .send({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    expect(response.status).toBe(200);
    expect(response.body.access_token).toEqual(expect.any(String));
    expect(response.body.access_token.length).toBeGreaterThan(0);
  });

  it.each([
    ['a wrong secret', { client_id: CLIENT_ID, client_secret: 'nope' }],
    ['a wrong client id', { client_id: 'test_other', client_secret: CLIENT_SECRET }],
    ['no credentials', {}],
  ])('refuses a token for %s with 401 not_authenticated', async (_name, body) => {
    const response = await request(sim.app).post('/oauth/token').send(body);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('not_authenticated');
    expect(response.body.access_token).toBeUndefined();
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown bearer token', { Authorization: 'Bearer 0123456789abcdef' }],
    ['the token without the Bearer scheme', 'raw'],
  ])('answers 401 not_authenticated to %s', async (_name, headers) => {
    const set = headers === 'raw' ? { Authorization: bearer } : headers;
    for (const response of [
      await request(sim.app).get(path()).set(set),
      await request(sim.app).get(path('/processing_ecomm/history')).set(set),
      await request(sim.app).post(path('/processing_ecomm')).set(set).send({ variable_rate: 2.9 }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('not_authenticated');
    }
    // Nothing was created by the refused POST.
    expect(sim.store.all()).toEqual([]);
  });

  it('accepts a token for just under 24 hours and refuses it from 24 hours on', async () => {
    advance(24 * HOUR - 1);
    expect((await get(path())).status).toBe(200);
    advance(1);
    const expired = await get(path());
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('not_authenticated');
    bearer = await issueToken();
    expect((await get(path())).status).toBe(200);
  });

  it('refuses every issued token after revokeTokens() until a new one is obtained', async () => {
    const other = await issueToken();
    sim.revokeTokens();
    for (const token of [bearer, other]) {
      const response = await request(sim.app).get(path()).set('Authorization', `Bearer ${token}`);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('not_authenticated');
    }
    bearer = await issueToken();
    expect((await get(path())).status).toBe(200);
  });
});

describe('creating standard fee configurations', () => {
  it('answers 201 with a standard_fee_configuration envelope holding the configuration', async () => {
    const response = await post('processing_ecomm', {
      variable_rate: 2.9,
      transaction_fee_cents: 30,
      fee_cap_cents: 500,
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: response.body.data.id,
      type: 'standard_fee_configuration',
      page_info: null,
      data: {
        id: expect.stringMatching(/^sfc_/),
        account_id: ACCOUNT,
        platform_account_id: expect.any(String),
        fee_type: 'processing_ecomm',
        variable_rate: 2.9,
        transaction_fee_cents: 30,
        transaction_fee_currency: 'usd',
        fee_cap_cents: 500,
        effective_start: START.toISOString(),
        effective_end: null,
      },
    });
  });

  it('defaults transaction_fee_cents to 0, fee_cap_cents to null and effective_start to now', async () => {
    const created = await create('processing_ach', { variable_rate: 0.8 });
    expect(created.transaction_fee_cents).toBe(0);
    expect(created.fee_cap_cents).toBeNull();
    expect(created.effective_start).toBe(START.toISOString());
    expect(created.effective_end).toBeNull();
  });

  it('returns the active configuration of a type in the same envelope', async () => {
    const created = await create('processing_card_present', {
      variable_rate: 2.6,
      transaction_fee_cents: 10,
    });
    const response = await activeOf('processing_card_present');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: created.id,
      type: 'standard_fee_configuration',
      data: created,
      page_info: null,
    });
  });

  it('rejects a missing variable_rate with 422 parameter_missing, also when effective_end is set', async () => {
    const withoutRate = await post('processing_ecomm', { transaction_fee_cents: 30 });
    expect(withoutRate.status).toBe(422);
    expect(withoutRate.body.error.code).toBe('parameter_missing');

    const retiringWithoutRate = await post('platform', { effective_end: at(HOUR) });
    expect(retiringWithoutRate.status).toBe(422);
    expect(retiringWithoutRate.body.error.code).toBe('parameter_missing');
    expect(sim.store.all()).toEqual([]);
  });

  it.each(['processing_ecomm', 'processing_card_present', 'processing_ach', 'processing_ach_expedited'])(
    'rejects effective_end on the base type %s with 422 effective_end_must_be_nil_for_fee_type',
    async (feeType) => {
      const existing = await create(feeType, { variable_rate: 1 });
      const response = await post(feeType, { variable_rate: 2, effective_end: at(HOUR) });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('effective_end_must_be_nil_for_fee_type');
      // The base configuration was not retired.
      expect(await history(feeType)).toEqual([existing]);
      advance(2 * HOUR);
      expect((await activeOf(feeType)).body.data).toEqual(existing);
    },
  );

  it('rejects a brand ecomm type without an active processing_ecomm, and accepts it once the base exists', async () => {
    const refused = await post('visa_brand_ecomm', { variable_rate: 2.5 });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('fee_type_must_be_inside_hierarchy');

    await create('processing_ecomm', { variable_rate: 2.9 });
    const accepted = await post('visa_brand_ecomm', { variable_rate: 2.5 });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.fee_type).toBe('visa_brand_ecomm');
  });

  it('rejects a brand card-present type when only the ecomm base is active', async () => {
    await create('processing_ecomm', { variable_rate: 2.9 });
    const refused = await post('mastercard_brand_card_present', { variable_rate: 2.5 });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('fee_type_must_be_inside_hierarchy');

    await create('processing_card_present', { variable_rate: 2.7 });
    expect((await post('mastercard_brand_card_present', { variable_rate: 2.5 })).status).toBe(201);
  });

  it('does not count a base configuration that is only scheduled as active for the hierarchy', async () => {
    await create('processing_ecomm', { variable_rate: 2.9, effective_start: at(HOUR) });
    const refused = await post('amex_brand_ecomm', { variable_rate: 3.5 });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('fee_type_must_be_inside_hierarchy');
  });

  it.each([
    ['equal to effective_start', 0],
    ['before effective_start', -MINUTE],
  ])('rejects an effective_end %s with 422', async (_name, offset) => {
    const start = at(2 * HOUR);
    const end = new Date(new Date(start).getTime() + offset).toISOString();
    const response = await post('platform', { variable_rate: 1, effective_start: start, effective_end: end });
    expect(response.status).toBe(422);
    expect(response.body.error).toBeDefined();
    expect(sim.store.all()).toEqual([]);
  });

  it.each([
    ['now', 0],
    ['in the past', -MINUTE],
  ])('rejects an effective_end %s with 422, even when later than effective_start', async (_name, offset) => {
    const response = await post('platform', {
      variable_rate: 1,
      effective_start: at(-2 * HOUR),
      effective_end: at(offset),
    });
    expect(response.status).toBe(422);
    expect(sim.store.all()).toEqual([]);
  });

  it.each([
    ['now', 0],
    ['in the past', -MINUTE],
  ])('rejects an effective_end %s when effective_start is omitted', async (_name, offset) => {
    const response = await post('discover_brand_ecomm', { variable_rate: 1, effective_end: at(offset) });
    expect(response.status).toBe(422);
  });

  it('answers 404 resource_not_found for the active configuration of a type that has none', async () => {
    await create('processing_ecomm', { variable_rate: 2.9 });
    for (const feeType of ['processing_ach', 'platform', 'visa_brand_ecomm']) {
      const response = await activeOf(feeType);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('resource_not_found');
    }
  });
});

describe('chaining and the configuration lifecycle', () => {
  it('retires the active configuration at the new one’s start, with no gap, when posting without effective_end', async () => {
    const first = await create('processing_ecomm', { variable_rate: 2.9 });
    advance(HOUR);
    const second = await create('processing_ecomm', { variable_rate: 3.1 });

    const [newest, oldest] = await history('processing_ecomm');
    expect(newest).toEqual(second);
    expect(oldest?.id).toBe(first.id);
    expect(oldest?.effective_end).toBe(second.effective_start);
    expect(second.effective_end).toBeNull();
    expect((await activeOf('processing_ecomm')).body.data.id).toBe(second.id);
  });

  it('treats an explicit effective_start of now like an omitted one', async () => {
    const first = await create('processing_ach_expedited', { variable_rate: 1.5 });
    advance(MINUTE);
    const second = await create('processing_ach_expedited', { variable_rate: 1.6, effective_start: at(0) });
    expect(second.effective_start).toBe(currentDate.toISOString());
    const [, retired] = await history('processing_ach_expedited');
    expect(retired?.id).toBe(first.id);
    expect(retired?.effective_end).toBe(second.effective_start);
    expect((await activeOf('processing_ach_expedited')).body.data.id).toBe(second.id);
  });

  // Seed: "POST configuration | effective_start omitted or now | active | The previous active configuration
  // of that fee type is retired." Two POSTs at the same instant (same millisecond; common under an injected
  // clock) leave BOTH active in the simulator, the older one first: the chaining only retires configurations
  // that started strictly before the new start. Marked `fails` until the simulator follows the seed.
  it('retires the previous configuration even when the new one starts at the same instant', async () => {
    const first = await create('processing_ecomm', { variable_rate: 2.9 });
    const second = await create('processing_ecomm', { variable_rate: 3.1 });
    expect((await activeOf('processing_ecomm')).body.data.id).toBe(second.id);
    const active = (await get(path())).body.data as Configuration[];
    expect(active.map((c) => c.id)).toEqual([second.id]);
    const retired = (await history('processing_ecomm')).find((c) => c.id === first.id);
    expect(retired?.effective_end).toBe(second.effective_start);
  });

  it('schedules a future configuration: listed as scheduled, the current one stays active until its start', async () => {
    const current = await create('processing_ecomm', { variable_rate: 2.9 });
    const startsAt = at(2 * HOUR);
    const scheduled = await create('processing_ecomm', { variable_rate: 2.5, effective_start: startsAt });
    expect(scheduled.effective_start).toBe(startsAt);
    expect(scheduled.effective_end).toBeNull();

    const list = await get(path('/scheduled'));
    expect(list.status).toBe(200);
    expect(list.body.type).toBe('array');
    expect((list.body.data as Configuration[]).map((c) => c.id)).toEqual([scheduled.id]);
    expect((await activeOf('processing_ecomm')).body.data.id).toBe(current.id);

    advance(2 * HOUR - 1);
    expect((await activeOf('processing_ecomm')).body.data.id).toBe(current.id);
    expect((await get(path('/scheduled'))).body.data).toHaveLength(1);

    advance(1);
    expect((await activeOf('processing_ecomm')).body.data.id).toBe(scheduled.id);
    expect((await get(path('/scheduled'))).body.data).toEqual([]);
    const [newest, previous] = await history('processing_ecomm');
    expect(newest?.id).toBe(scheduled.id);
    expect(newest?.effective_end).toBeNull();
    expect(previous?.effective_end).toBe(startsAt);
  });

  it('keeps the chain gapless when a configuration is inserted before an already scheduled one', async () => {
    const a = await create('processing_card_present', { variable_rate: 2.7 });
    const c = await create('processing_card_present', { variable_rate: 2.3, effective_start: at(3 * HOUR) });
    const b = await create('processing_card_present', { variable_rate: 2.5, effective_start: at(HOUR) });

    const chain = await history('processing_card_present');
    expect(chain.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(chain[2]?.effective_end).toBe(b.effective_start);
    expect(chain[1]?.effective_end).toBe(c.effective_start);
    expect(chain[0]?.effective_end).toBeNull();
    const scheduledIds = ((await get(path('/scheduled'))).body.data as Configuration[]).map((x) => x.id);
    expect(scheduledIds.sort()).toEqual([b.id, c.id].sort());

    advance(HOUR);
    expect((await activeOf('processing_card_present')).body.data.id).toBe(b.id);
    advance(2 * HOUR);
    expect((await activeOf('processing_card_present')).body.data.id).toBe(c.id);
  });

  it('retires an optional type posted with effective_end once that time passes', async () => {
    await create('platform', { variable_rate: 0.5 });
    advance(HOUR);
    const endsAt = at(30 * MINUTE);
    const retiring = await create('platform', { variable_rate: 0.5, effective_end: endsAt });
    expect(retiring.effective_end).toBe(endsAt);

    advance(30 * MINUTE - 1);
    expect((await activeOf('platform')).body.data.id).toBe(retiring.id);
    advance(1);
    const after = await activeOf('platform');
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe('resource_not_found');
    expect((await get(path())).body.data).toEqual([]);
    expect(await history('platform')).toHaveLength(2);
  });

  it('lets a brand type be retired while its base type stays active', async () => {
    const base = await create('processing_ecomm', { variable_rate: 2.9 });
    await create('visa_brand_ecomm', { variable_rate: 2.5 });
    advance(MINUTE);
    await create('visa_brand_ecomm', { variable_rate: 2.5, effective_end: at(MINUTE) });
    advance(MINUTE);
    expect((await activeOf('visa_brand_ecomm')).status).toBe(404);
    const active = (await get(path())).body.data as Configuration[];
    expect(active.map((c) => c.id)).toEqual([base.id]);
  });

  it('lists only the active configurations, one per type, as a paginated array', async () => {
    await create('processing_ecomm', { variable_rate: 2.9 });
    advance(MINUTE);
    const ecomm = await create('processing_ecomm', { variable_rate: 3 });
    const ach = await create('processing_ach', { variable_rate: 0.8 });
    await create('platform', { variable_rate: 0.2, effective_start: at(HOUR) });

    const response = await get(path());
    expect(response.status).toBe(200);
    expect(response.body.id).toBeNull();
    expect(response.body.type).toBe('array');
    expect((response.body.data as Configuration[]).map((c) => c.id).sort()).toEqual(
      [ecomm.id, ach.id].sort(),
    );
    expect(response.body.page_info).toMatchObject({ has_previous: false, has_next: false });
  });

  it('orders history by effective_start descending, whatever the order of creation', async () => {
    const now0 = await create('processing_ach', { variable_rate: 0.8 });
    const in5h = await create('processing_ach', { variable_rate: 0.7, effective_start: at(5 * HOUR) });
    const in1h = await create('processing_ach', { variable_rate: 0.9, effective_start: at(HOUR) });
    advance(10 * MINUTE);
    const now10 = await create('processing_ach', { variable_rate: 1.0 });

    const list = await history('processing_ach');
    expect(list.map((c) => c.id)).toEqual([in5h.id, in1h.id, now10.id, now0.id]);
    const starts = list.map((c) => c.effective_start);
    expect([...starts].sort().reverse()).toEqual(starts);
  });
});

describe('pagination', () => {
  // 30 processing_ecomm configurations a minute apart; history lists them newest first.
  async function seedHistory(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      ids.push((await create('processing_ecomm', { variable_rate: 1 + index / 100 })).id);
      advance(MINUTE);
    }
    return ids.reverse();
  }
  const historyPage = (query: string) => get(`${path('/processing_ecomm/history')}?${query}`);

  it('returns 25 records by default and says there are more', async () => {
    const ids = await seedHistory(30);
    const response = await get(path('/processing_ecomm/history'));
    expect(response.status).toBe(200);
    expect(response.body.id).toBeNull();
    expect(response.body.type).toBe('array');
    expect((response.body.data as Configuration[]).map((c) => c.id)).toEqual(ids.slice(0, 25));
    expect(response.body.page_info).toEqual({
      has_previous: false,
      has_next: true,
      start_cursor: expect.any(String),
      end_cursor: expect.any(String),
    });
  });

  it.each([1, 7, 25, 29, 30, 31, 100])('honours limit=%i (all records when fewer exist)', async (limit) => {
    const ids = await seedHistory(30);
    const response = await historyPage(`limit=${limit}`);
    expect((response.body.data as Configuration[]).map((c) => c.id)).toEqual(ids.slice(0, limit));
    expect(response.body.page_info.has_next).toBe(limit < 30);
  });

  it.each(['0', '101', 'abc', '-1', '2.5', ''])('falls back to 25 for limit=%s', async (limit) => {
    await seedHistory(30);
    const response = await historyPage(`limit=${limit}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(25);
  });

  it('reaches every record exactly once by following end_cursor with after_cursor', async () => {
    const ids = await seedHistory(30);
    const seen: string[] = [];
    let query = 'limit=7';
    let pages = 0;
    for (;;) {
      const response = await historyPage(query);
      expect(response.status).toBe(200);
      const pageInfo = response.body.page_info as PageInfo;
      seen.push(...(response.body.data as Configuration[]).map((c) => c.id));
      expect(pageInfo.has_previous).toBe(pages > 0);
      pages++;
      if (!pageInfo.has_next) break;
      query = `limit=7&after_cursor=${encodeURIComponent(pageInfo.end_cursor)}`;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(ids);
    expect(new Set(seen).size).toBe(30);
  });

  it('fetches the page before a cursor with before_cursor', async () => {
    const ids = await seedHistory(30);
    const all = await historyPage('limit=100');
    const lastCursor = (all.body.page_info as PageInfo).end_cursor;
    const response = await historyPage(`limit=5&before_cursor=${encodeURIComponent(lastCursor)}`);
    expect((response.body.data as Configuration[]).map((c) => c.id)).toEqual(ids.slice(24, 29));
    expect(response.body.page_info).toMatchObject({ has_previous: true, has_next: true });
  });

  it('answers has_next false and no data after the cursor of the last record', async () => {
    await seedHistory(30);
    const all = await historyPage('limit=100');
    const lastCursor = (all.body.page_info as PageInfo).end_cursor;
    const response = await historyPage(`after_cursor=${encodeURIComponent(lastCursor)}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.page_info.has_next).toBe(false);
  });

  it('answers has_previous false and no data before the cursor of the first record', async () => {
    await seedHistory(30);
    const first = await historyPage('limit=3');
    const firstCursor = (first.body.page_info as PageInfo).start_cursor;
    const response = await historyPage(`before_cursor=${encodeURIComponent(firstCursor)}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.page_info.has_previous).toBe(false);
  });

  it('paginates the active list and the scheduled list too', async () => {
    for (let index = 0; index < 3; index++) {
      await create('processing_ach', { variable_rate: 1, effective_start: at((index + 1) * HOUR) });
    }
    const scheduled = await get(`${path('/scheduled')}?limit=2`);
    expect(scheduled.body.data).toHaveLength(2);
    expect(scheduled.body.page_info.has_next).toBe(true);
    const rest = await get(
      `${path('/scheduled')}?limit=2&after_cursor=${encodeURIComponent(scheduled.body.page_info.end_cursor)}`,
    );
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.page_info).toMatchObject({ has_previous: true, has_next: false });

    await create('processing_ecomm', { variable_rate: 2.9 });
    await create('processing_card_present', { variable_rate: 2.7 });
    const active = await get(`${path()}?limit=1`);
    expect(active.body.data).toHaveLength(1);
    expect(active.body.page_info.has_next).toBe(true);
  });
});

describe('test controls', () => {
  it('fails the next n requests with the given status and error code, then answers normally', async () => {
    sim.failNext(2, 503, 'gateway_error_please_retry');
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await get(path());
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('gateway_error_please_retry');
    }
    expect((await get(path())).status).toBe(200);
  });

  it('fails the token request too, and uses a null code when none is given', async () => {
    sim.failNext(1, 500);
    const failed = await request(sim.app)
      .post('/oauth/token')
      .send({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBeNull();
    expect(await issueToken()).toEqual(expect.any(String));
  });

  it('injects a failure without processing the request', async () => {
    sim.failNext(1, 429, 'gateway_rate_limit_error');
    const response = await post('processing_ecomm', { variable_rate: 2.9 });
    expect(response.status).toBe(429);
    expect(response.body.error.code).toBe('gateway_rate_limit_error');
    expect(sim.store.all()).toEqual([]);
  });

  it('records each request as method and path', async () => {
    await get(`${path('/processing_ecomm/history')}?limit=5`);
    await post('processing_ecomm', { variable_rate: 2.9 });
    expect(sim.requests).toEqual([
      'POST /oauth/token',
      `GET /v1/sub_accounts/${ACCOUNT}/fee_configurations/processing_ecomm/history`,
      `POST /v1/sub_accounts/${ACCOUNT}/fee_configurations/processing_ecomm`,
    ]);
  });

  it('rewrites and removes stored configurations, as the real API never would', async () => {
    const first = await create('processing_ecomm', { variable_rate: 2.9 });
    advance(MINUTE);
    const second = await create('processing_ecomm', { variable_rate: 3.1 });
    sim.rewrite(first.id, { variable_rate: 9.9 });
    expect((await history('processing_ecomm')).find((c) => c.id === first.id)?.variable_rate).toBe(9.9);
    sim.remove(second.id);
    expect((await history('processing_ecomm')).map((c) => c.id)).toEqual([first.id]);
  });
});

// The reads the missed-event sweep pages through, and the controls that make a state the API shows but
// no webhook brought.
const OTHER = 'acc_sub_2';
const stamp = (minutes: number) => new Date(START.getTime() + minutes * MINUTE).toISOString();
const asAccount = (url: string, account: string | null = ACCOUNT) => {
  const call = get(url);
  return account ? call.set('Sub-Account', account) : call;
};
const idsOf = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

/** Payments of ACCOUNT a minute apart (two share the last minute, to show ties by id); ids newest first. */
function putPayments(count: number, account = ACCOUNT): string[] {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const at = stamp(Math.min(index, count - 2));
    const id = `${account === ACCOUNT ? 'py_sim' : 'py_other'}_${String(index).padStart(3, '0')}`;
    sim.putPayment({ id, account_id: account, status: 'succeeded', created_at: at, updated_at: at });
    ids.push(id);
  }
  return ids.reverse();
}

/** A local receiver for the simulator's webhooks. */
async function webhookReceiver() {
  const received: { headers: Record<string, string | undefined>; body: string }[] = [];
  const app = express();
  app.use(express.text({ type: '*/*' }));
  app.post('/webhooks', (req, res) => {
    received.push({
      headers: { timestamp: req.get('justifi-timestamp'), signature: req.get('justifi-signature') },
      body: req.body,
    });
    res.json({ received: true });
  });
  const server = await serve(app, 0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return { received, url, close: () => closeServer(server) };
}

describe('payments', () => {
  it('lists the Sub-Account header’s payments newest first, ties by id, with the seed’s pagination', async () => {
    const ids = putPayments(30);
    putPayments(2, OTHER);
    const first = await asAccount('/v1/payments?limit=10');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: null, type: 'array' });
    expect(idsOf(first.body)).toEqual(ids.slice(0, 10));
    expect(ids.slice(0, 2)).toEqual(['py_sim_029', 'py_sim_028']);
    expect(first.body.page_info).toMatchObject({ has_previous: false, has_next: true });
    const next = await asAccount(
      `/v1/payments?limit=25&after_cursor=${encodeURIComponent(first.body.page_info.end_cursor)}`,
    );
    expect(idsOf(next.body)).toEqual(ids.slice(10));
    expect(next.body.page_info).toMatchObject({ has_previous: true, has_next: false });
    const before = await asAccount(
      `/v1/payments?limit=3&before_cursor=${encodeURIComponent(next.body.page_info.start_cursor)}`,
    );
    expect(idsOf(before.body)).toEqual(ids.slice(7, 10));
    expect((await asAccount('/v1/payments?limit=100', OTHER)).body.data).toHaveLength(2);
  });

  it('lists the platform’s own (here: no) payments without a Sub-Account header', async () => {
    putPayments(3);
    const response = await asAccount('/v1/payments', null);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
  });

  it('answers one payment in a payment envelope, and 404 resource_not_found for an unknown id or account', async () => {
    putPayments(2);
    const found = await asAccount('/v1/payments/py_sim_001', null);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      id: 'py_sim_001',
      type: 'payment',
      data: {
        id: 'py_sim_001',
        account_id: ACCOUNT,
        status: 'succeeded',
        created_at: stamp(0),
        updated_at: stamp(0),
      },
      page_info: null,
    });
    expect((await asAccount('/v1/payments/py_sim_001')).status).toBe(200);
    for (const response of [
      await asAccount('/v1/payments/py_nope'),
      await asAccount('/v1/payments/py_sim_001', OTHER),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('resource_not_found');
    }
  });

  it('needs a bearer token and honours injected failures and revoked tokens', async () => {
    putPayments(1);
    expect((await request(sim.app).get('/v1/payments/py_sim_000')).status).toBe(401);
    sim.failNext(1, 429, 'gateway_rate_limit_error');
    const limited = await asAccount('/v1/payments');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('gateway_rate_limit_error');
    sim.revokeTokens();
    expect((await asAccount('/v1/forwarding/requests')).status).toBe(401);
    expect(sim.requests.slice(-3)).toEqual([
      'GET /v1/payments/py_sim_000',
      'GET /v1/payments',
      'GET /v1/forwarding/requests',
    ]);
  });

  it('puts a newer state without a webhook: the API shows it, in the same place in the list', async () => {
    const ids = putPayments(5);
    const newer = {
      id: 'py_sim_002',
      account_id: ACCOUNT,
      status: 'failed',
      created_at: stamp(2),
      updated_at: stamp(60),
    };
    sim.putPayment(newer);
    newer.status = 'mutated after the put';
    expect((await asAccount('/v1/payments/py_sim_002')).body.data).toMatchObject({
      status: 'failed',
      updated_at: stamp(60),
    });
    expect(idsOf((await asAccount('/v1/payments')).body)).toEqual(ids);
    // A changed creation time moves it; a changed account moves it to that account's list.
    sim.putPayment({ ...newer, status: 'failed', created_at: stamp(-1) });
    expect(idsOf((await asAccount('/v1/payments')).body).at(-1)).toBe('py_sim_002');
    sim.putPayment({ ...newer, account_id: OTHER });
    expect(idsOf((await asAccount('/v1/payments')).body)).not.toContain('py_sim_002');
    expect(idsOf((await asAccount('/v1/payments', OTHER)).body)).toEqual(['py_sim_002']);
  });

  it('puts payments and forwarding requests over HTTP, refusing objects it could not list', async () => {
    const put = (path: string, body: unknown) =>
      request(sim.app)
        .put(path)
        .send(body as object);
    const stored = await put('/dev/payments/py_http', {
      account_id: ACCOUNT,
      status: 'pending',
      created_at: stamp(0),
    });
    expect(stored.status).toBe(200);
    expect(stored.body.id).toBe('py_http');
    expect((await asAccount('/v1/payments/py_http')).body.data.status).toBe('pending');
    expect(
      (await put('/dev/forwarding/requests/fwd_http', { account_id: ACCOUNT, created_at: stamp(0) })).status,
    ).toBe(200);
    expect((await asAccount('/v1/forwarding/requests/fwd_http')).body.type).toBe('forwarding_request');

    const mismatch = await put('/dev/payments/py_a', {
      id: 'py_b',
      account_id: ACCOUNT,
      created_at: stamp(0),
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error.message).toContain('id');
    const noAccount = await put('/dev/payments/py_a', { created_at: stamp(0) });
    expect(noAccount.status).toBe(422);
    expect(noAccount.body.error).toEqual({
      code: 'parameter_missing',
      message: 'payment.account_id must be a non-empty string',
    });
    const badDate = await put('/dev/payments/py_a', { account_id: ACCOUNT, created_at: 'yesterday' });
    expect(badDate.body.error.code).toBe('invalid_parameter');
    expect(() => sim.putForwardingRequest({ id: 'fwd_x', account_id: ACCOUNT })).toThrow(/created_at/);
    const malformed = await request(sim.app)
      .put('/dev/payments/py_a')
      .set('content-type', 'application/json')
      .send('{');
    expect(malformed.status).toBe(400);
  });
});

describe('POST /dev/payments and the payments store', () => {
  const script = (receiverUrl: string | null, extra: Record<string, unknown> = {}) => ({
    ...(receiverUrl ? { webhook_url: receiverUrl, secret: 'sigk_sim' } : {}),
    account_id: ACCOUNT,
    amount: 10_000,
    ...extra,
  });

  it('stores each state it delivers, so the API shows what the last webhook said', async () => {
    await create('processing_ecomm', { variable_rate: 2.9, transaction_fee_cents: 30 });
    const receiver = await webhookReceiver();
    try {
      const response = await request(sim.app).post('/dev/payments').send(script(receiver.url));
      expect(response.status).toBe(200);
      expect(response.body.webhook_statuses).toEqual([200, 200]);
      expect(response.body.webhooks_dropped).toBe(false);
      const events = receiver.received.map((delivery) => JSON.parse(delivery.body));
      expect(events.map((event) => [event.event_name, event.data.status])).toEqual([
        ['payment.created', 'pending'],
        ['payment.succeeded', 'succeeded'],
      ]);
      for (const delivery of receiver.received)
        expect(delivery.headers.signature).toBe(
          sign('sigk_sim', delivery.headers.timestamp as string, delivery.body),
        );
      const api = await asAccount(`/v1/payments/${response.body.payment.id}`);
      expect(api.body.data).toEqual(events[1].data);
      expect(api.body.data.fees[0]).toMatchObject({ amount: 320, source_fee_type: 'processing_ecomm' });
      expect(idsOf((await asAccount('/v1/payments')).body)).toEqual([response.body.payment.id]);
    } finally {
      await receiver.close();
    }
  });

  it('stores but delivers nothing with drop_webhooks, which needs no webhook_url', async () => {
    const response = await request(sim.app)
      .post('/dev/payments')
      .send(script(null, { id: 'py_dropped', drop_webhooks: true }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ webhook_statuses: [], webhooks_dropped: true });
    expect((await asAccount('/v1/payments/py_dropped')).body.data.status).toBe('succeeded');
    const again = await request(sim.app)
      .post('/dev/payments')
      .send(script(null, { id: 'py_dropped', drop_webhooks: true }));
    expect(again.status).toBe(422);
    const noUrl = await request(sim.app).post('/dev/payments').send(script(null));
    expect(noUrl.status).toBe(422);
    expect(noUrl.body.error.code).toBe('parameter_missing');
  });

  it('delivers nothing for ids named in dropWebhooks (or POST /dev/drop-webhooks), and still for others', async () => {
    const receiver = await webhookReceiver();
    try {
      sim.dropWebhooks(['py_lost_1']);
      const viaHttp = await request(sim.app)
        .post('/dev/drop-webhooks')
        .send({ payment_ids: ['py_lost_2'] });
      expect(viaHttp.body).toEqual({ dropped_payment_ids: ['py_lost_2'] });
      for (const id of ['py_lost_1', 'py_lost_2']) {
        const response = await request(sim.app).post('/dev/payments').send(script(receiver.url, { id }));
        expect(response.body.webhooks_dropped).toBe(true);
      }
      expect(receiver.received).toEqual([]);
      await request(sim.app)
        .post('/dev/payments')
        .send(script(receiver.url, { id: 'py_kept' }));
      expect(receiver.received).toHaveLength(2);
      expect(idsOf((await asAccount('/v1/payments')).body).sort()).toEqual([
        'py_kept',
        'py_lost_1',
        'py_lost_2',
      ]);
      expect((await request(sim.app).post('/dev/drop-webhooks').send({ payment_ids: [] })).status).toBe(422);
    } finally {
      await receiver.close();
    }
  });
});

describe('forwarding requests', () => {
  beforeEach(() => {
    for (let index = 0; index < 10; index++) {
      sim.putForwardingRequest({
        id: `fwd_sim_${index}`,
        account_id: ACCOUNT,
        payment_method_id: index % 2 === 0 ? 'pm_even' : 'pm_odd',
        status: 'completed',
        created_at: stamp(index * 10),
      });
    }
    sim.putForwardingRequest({ id: 'fwd_other', account_id: OTHER, created_at: stamp(5) });
  });
  const list = (query: string, account: string | null = ACCOUNT) =>
    asAccount(`/v1/forwarding/requests?${query}`, account);
  const fwd = (...indexes: number[]) => indexes.map((index) => `fwd_sim_${index}`);

  it('lists the sub account’s requests newest first, created in [created_after, created_before)', async () => {
    expect(idsOf((await list('')).body)).toEqual(fwd(9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    expect(idsOf((await list(`created_after=${stamp(30)}`)).body)).toEqual(fwd(9, 8, 7, 6, 5, 4, 3));
    expect(idsOf((await list(`created_before=${stamp(30)}`)).body)).toEqual(fwd(2, 1, 0));
    expect(idsOf((await list(`created_after=${stamp(25)}&created_before=${stamp(61)}`)).body)).toEqual(
      fwd(6, 5, 4, 3),
    );
    expect(idsOf((await list(`created_after=${stamp(95)}`)).body)).toEqual([]);
    expect(idsOf((await list('payment_method_id=pm_odd&limit=2')).body)).toEqual(fwd(9, 7));
    expect(idsOf((await list('', OTHER)).body)).toEqual(['fwd_other']);
  });

  it('pages a filtered list with cursors, and refuses a cursor from outside the window', async () => {
    const query = `created_after=${stamp(20)}&limit=3`;
    const first = await list(query);
    expect(idsOf(first.body)).toEqual(fwd(9, 8, 7));
    const cursor = encodeURIComponent(first.body.page_info.end_cursor);
    const second = await list(`${query}&after_cursor=${cursor}`);
    expect(idsOf(second.body)).toEqual(fwd(6, 5, 4));
    const last = await list(`${query}&after_cursor=${encodeURIComponent(second.body.page_info.end_cursor)}`);
    expect(idsOf(last.body)).toEqual(fwd(3, 2));
    expect(last.body.page_info).toMatchObject({ has_previous: true, has_next: false });
    const outside = await list(
      `created_after=${stamp(50)}&after_cursor=${encodeURIComponent(last.body.page_info.end_cursor)}`,
    );
    expect(outside.status).toBe(400);
    expect(outside.body.error.code).toBe('invalid_parameter');
  });

  it.each([
    'created_after=yesterday',
    'created_before=',
    'created_after=a&created_after=b',
    'payment_method_id=a&payment_method_id=b',
  ])('answers 400 invalid_parameter naming the parameter for %s', async (query) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
    expect(response.body.error.message).toContain(query.split('=')[0]);
  });

  it('answers one request in a forwarding_request envelope; 404 forwarding_request_not_found otherwise', async () => {
    const found = await asAccount('/v1/forwarding/requests/fwd_sim_3');
    expect(found.body).toMatchObject({ id: 'fwd_sim_3', type: 'forwarding_request', page_info: null });
    expect(found.body.data).toMatchObject({
      id: 'fwd_sim_3',
      payment_method_id: 'pm_odd',
      status: 'completed',
    });
    expect((await asAccount('/v1/forwarding/requests/fwd_sim_3', null)).status).toBe(200);
    for (const response of [
      await asAccount('/v1/forwarding/requests/fwd_nope'),
      await asAccount('/v1/forwarding/requests/fwd_sim_3', OTHER),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('forwarding_request_not_found');
    }
  });
});

describe('seeded payments and pagination at scale', () => {
  it('pages through 100,000 seeded payments, newest first, each exactly once, without a slow page', async () => {
    await create('processing_ecomm', { variable_rate: 2.9, transaction_fee_cents: 30 });
    const from = new Date(START.getTime() + HOUR);
    const seeded = sim.seedPayments(100_000, ACCOUNT, {
      createdBetween: [from, new Date(from.getTime() + 90 * 24 * HOUR)],
    });
    expect(seeded).toHaveLength(100_000);
    expect(seeded[0]).toMatchObject({
      account_id: ACCOUNT,
      status: 'succeeded',
      created_at: from.toISOString(),
    });
    expect(seeded[0]?.fees).toEqual([expect.objectContaining({ source_fee_type: 'processing_ecomm' })]);

    const indexed = sim.payments.listing(ACCOUNT);
    // Counts the items paginateList reads: a page must read its own items only, never scan the list.
    let reads = 0;
    const listing = {
      ...indexed,
      at(index: number) {
        reads++;
        return indexed.at(index);
      },
    };
    const started = performance.now();
    const seen = new Set<string>();
    let previous = Number.POSITIVE_INFINITY;
    let query: Record<string, unknown> = { limit: 100 };
    for (;;) {
      const page = paginateList(listing, query);
      for (const payment of page.data) {
        const created = Date.parse(payment.created_at);
        expect(created <= previous).toBe(true);
        previous = created;
      }
      for (const payment of page.data) seen.add(payment.id);
      if (!page.page_info.has_next) break;
      query = { limit: 100, after_cursor: page.page_info.end_cursor };
    }
    expect(seen.size).toBe(100_000);
    expect(reads).toBe(100_000);
    // Generous for 2 shared cores; a re-sort or a scan per page would take far longer than this.
    expect(performance.now() - started).toBeLessThan(10_000);
    const deep = await asAccount(
      `/v1/payments?limit=2&after_cursor=${encodeURIComponent(Buffer.from(seeded[1]?.id as string).toString('base64url'))}`,
    );
    expect(idsOf(deep.body)).toEqual([seeded[0]?.id]);
  });

  it('seeds over HTTP, refusing a count or window it cannot use', async () => {
    const seed = (body: Record<string, unknown>) => request(sim.app).post('/dev/seed-payments').send(body);
    const window = { account_id: OTHER, created_after: stamp(0), created_before: stamp(60) };
    const seeded = await seed({ ...window, count: 3 });
    expect(seeded.status).toBe(200);
    expect(seeded.body.seeded).toBe(3);
    expect(idsOf((await asAccount('/v1/payments', OTHER)).body)).toEqual([
      seeded.body.newest_id,
      expect.any(String),
      seeded.body.oldest_id,
    ]);
    expect((await asAccount(`/v1/payments/${seeded.body.newest_id}`, OTHER)).body.data.created_at).toBe(
      stamp(40),
    );
    expect((await seed({ ...window, count: 0 })).status).toBe(422);
    expect((await seed({ ...window, count: 1, created_before: stamp(0) })).status).toBe(422);
    expect((await seed({ ...window, count: 1, created_after: 'soon' })).status).toBe(422);
  });

  it('pages an indexed listing exactly as the plain array it mirrors', async () => {
    putPayments(12);
    const listing = sim.payments.listing(ACCOUNT);
    const array = Array.from({ length: listing.length }, (_, index) => listing.at(index));
    const cursorOf = (index: number) => Buffer.from(array[index]?.id as string).toString('base64url');
    const queries: Record<string, unknown>[] = [{}, { limit: 5 }, { limit: 'x' }];
    for (const index of [0, 3, 11]) {
      queries.push({ limit: 4, after_cursor: cursorOf(index) }, { limit: 4, before_cursor: cursorOf(index) });
      queries.push({ after_cursor: cursorOf(index), before_cursor: cursorOf(Math.min(11, index + 2)) });
    }
    for (const query of queries)
      expect(paginateList(listing, query)).toEqual(paginateList(arrayListing(array), query));
    expect(() => paginateList(listing, { after_cursor: 'bm9wZQ' })).toThrow('unknown cursor');
  });
});
