import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeChangeCursor } from '../../src/changes/changeCursor.ts';
import { sequenceChanges } from '../../src/changes/sequenceChanges.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { insertChangeRow, readWholeFeed } from '../helpers/changes.ts';

const READ_TOKEN = 'feed-reader-token-0123456789';
const auth = { Authorization: `Bearer ${API_TOKEN}` };
const readAuth = { Authorization: `Bearer ${READ_TOKEN}` };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKENS: `reader:read:${READ_TOKEN}` } });
  await insertChangeRow(t.pool, { objectId: 'py_1', accountId: 'acc_a' });
  await insertChangeRow(t.pool, { objectId: 're_1', type: 'refund.created', accountId: 'acc_b' });
  await insertChangeRow(t.pool, {
    objectId: 'py_1',
    version: 2,
    type: 'payment.updated',
    accountId: 'acc_a',
  });
  await insertChangeRow(t.pool, { objectId: 'fnd_1', type: 'finding.opened', accountId: 'acc_b' });
});
afterAll(() => t.close());

describe('GET /api/changes', () => {
  it('lists every field of each change in seq order, with a read token, numbering committed changes first', async () => {
    const response = await request(t.app).get('/api/changes').set(readAuth);
    expect(response.status).toBe(200);
    expect(response.body.data.map((change: { id: string }) => change.id)).toEqual([
      'chg_1',
      'chg_2',
      'chg_3',
      'chg_4',
    ]);
    expect(response.body.data[2]).toEqual({
      id: 'chg_3',
      seq: 3,
      type: 'payment.updated',
      object: 'payment',
      object_id: 'py_1',
      object_version: 2,
      account_id: 'acc_a',
      account_type: 'test',
      occurred_at: expect.any(String),
      recorded_at: expect.any(String),
      event_ids: [],
      data: { id: 'py_1' },
    });
    expect(response.body.page_info).toEqual({
      has_previous: false,
      has_next: false,
      start_cursor: encodeChangeCursor(0),
      end_cursor: encodeChangeCursor(4),
    });
  });

  it('pages by limit: end_cursor is where the next page starts', async () => {
    const first = await request(t.app).get('/api/changes?limit=3').set(auth);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.page_info.has_next).toBe(true);
    const second = await request(t.app)
      .get(`/api/changes?limit=3&after=${first.body.page_info.end_cursor}`)
      .set(auth);
    expect(second.body.data.map((change: { id: string }) => change.id)).toEqual(['chg_4']);
  });

  it.each([
    ['types=payment.*', ['chg_1', 'chg_3']],
    ['types=refund.created,finding.*', ['chg_2', 'chg_4']],
    ['types=payment.updated', ['chg_3']],
    ['account_id=acc_b', ['chg_2', 'chg_4']],
    ['account_id=acc_a&types=payment.created', ['chg_1']],
  ])('filters by %s', async (query, ids) => {
    const response = await request(t.app).get(`/api/changes?${query}`).set(auth);
    expect(response.body.data.map((change: { id: string }) => change.id)).toEqual(ids);
    // A short page read up to the newest change: a filtered reader moves past what it skipped.
    expect(response.body.page_info.end_cursor).toBe(encodeChangeCursor(4));
  });

  it('answers an empty page with the cursor it was given when nothing comes within wait', async () => {
    const after = encodeChangeCursor(4);
    const started = Date.now();
    const response = await request(t.app).get(`/api/changes?after=${after}&wait=1`).set(auth);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.page_info.end_cursor).toBe(after);
  });

  it('answers a waiting read as soon as a change commits', async () => {
    const after = encodeChangeCursor(4);
    const waiting = request(t.app).get(`/api/changes?after=${after}&wait=20`).set(auth);
    const started = Date.now();
    setTimeout(() => void insertChangeRow(t.pool, { objectId: 'py_2' }), 300);
    const response = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.body.data.map((change: { object_id: string }) => change.object_id)).toEqual(['py_2']);
    expect(response.body.page_info.end_cursor).toBe(encodeChangeCursor(5));
  });

  it.each([
    ['after=nonsense', 'after', 'invalid_cursor'],
    [`after=${Buffer.from('id:3').toString('base64url')}`, 'after', 'invalid_cursor'],
    ['types=payment.deleted', 'types', 'invalid_parameter'],
    ['types=payment.*,', 'types', 'invalid_parameter'],
    ['limit=0', 'limit', 'invalid_parameter'],
    ['limit=501', 'limit', 'invalid_parameter'],
    ['limit=ten', 'limit', 'invalid_parameter'],
    ['wait=31', 'wait', 'invalid_parameter'],
    ['wait=-1', 'wait', 'invalid_parameter'],
    ['wait=1.5', 'wait', 'invalid_parameter'],
    ['account_id=%00', 'account_id', 'invalid_parameter'],
  ])('refuses %s with 400 naming %s', async (query, name, code) => {
    const response = await request(t.app).get(`/api/changes?${query}`).set(auth);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(new RegExp(`^${name}: `));
    expect(response.body.error.message).not.toContain('deleted');
  });

  it('lists the same changes whoever numbers them: the worker or the read', async () => {
    await insertChangeRow(t.pool, { objectId: 'py_3' });
    expect(await sequenceChanges(t.pool)).toBe(1);
    const all = await readWholeFeed(t);
    expect(all.map((change) => change.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
