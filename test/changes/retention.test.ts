import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import changePurge from '../../jobs/change-purge.ts';
import { encodeChangeCursor } from '../../src/changes/changeCursor.ts';
import { sequenceChanges } from '../../src/changes/sequenceChanges.ts';
import { loadConfig } from '../../src/config.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { insertChangeRow, readWholeFeed } from '../helpers/changes.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const now = new Date('2026-11-27T12:00:00Z');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ now: () => now, env: { CHANGE_RETENTION_DAYS: '10' } });
  for (let index = 1; index <= 5; index += 1) await insertChangeRow(t.pool, { objectId: `py_r${index}` });
  await sequenceChanges(t.pool);
  // Changes 1 to 3 recorded 11 days ago, 4 and 5 recorded 9 days ago.
  await t.pool.query(
    `update changes set recorded_at = $1::timestamptz - case when seq <= 3 then interval '11 days' else interval '9 days' end`,
    [now],
  );
});
afterAll(() => t.close());

it('the purge removes changes older than CHANGE_RETENTION_DAYS; an older cursor is 410 naming the oldest one served', async () => {
  const before = await request(t.app)
    .get(`/api/changes?after=${encodeChangeCursor(1)}`)
    .set(auth);
  expect(before.status).toBe(200);
  await changePurge.handle?.({}, t, 'test-job');
  expect((await readWholeFeed(t)).map((change) => change.seq)).toEqual([4, 5]);

  const oldest = encodeChangeCursor(3);
  for (const tooOld of [0, 1, 2]) {
    const response = await request(t.app)
      .get(`/api/changes?after=${encodeChangeCursor(tooOld)}`)
      .set(auth);
    expect(response.status).toBe(410);
    expect(response.body.error).toEqual({
      code: 'cursor_expired',
      message: `after: older than the changes kept; the oldest cursor still served is ${oldest}`,
    });
  }
  const served = await request(t.app).get(`/api/changes?after=${oldest}`).set(auth);
  expect(served.status).toBe(200);
  expect(served.body.data.map((change: { seq: number }) => change.seq)).toEqual([4, 5]);
  // Without a cursor the feed starts at the oldest change kept; an empty read keeps that start.
  const fromStart = await request(t.app).get('/api/changes').set(auth);
  expect(fromStart.body.data.map((change: { seq: number }) => change.seq)).toEqual([4, 5]);
  // A second run finds nothing older and moves nothing.
  await changePurge.handle?.({}, t, 'test-job');
  expect((await request(t.app).get(`/api/changes?after=${oldest}`).set(auth)).status).toBe(200);
});

it('keeps CHANGE_RETENTION_DAYS at 30 days unless set', async () => {
  expect(t.config.CHANGE_RETENTION_DAYS).toBe(10);
  expect(loadConfig({}).CHANGE_RETENTION_DAYS).toBe(30);
});
