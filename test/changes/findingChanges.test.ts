import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordFindings } from '../../src/findings/recordFindings.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { readWholeFeed } from '../helpers/changes.ts';

const auth = { Authorization: `Bearer ${API_TOKEN}` };
const context = (now: Date) => ({ scope: 'payment:py_fc', accountId: 'acc_fc', currency: 'usd', now });
const draft = {
  code: 'fee_total_mismatch' as const,
  severity: 'error' as const,
  subjectType: 'payment',
  subjectId: 'py_fc',
  expected: 71,
  actual: 70,
  details: {},
  atStake: 1,
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('a finding opened, acknowledged, accepted, reopened and resolved appends one change each, with the finding as GET shows it', async () => {
  const openedAt = new Date('2026-11-03T09:00:00Z');
  await recordFindings(t.pool, context(openedAt), [draft]);
  // Seen again by a later run: a refresh changes no status and appends nothing.
  await recordFindings(t.pool, context(new Date('2026-11-03T09:30:00Z')), [draft]);
  const [opened] = await readWholeFeed(t);
  const id = opened?.object_id as string;
  expect(id).toMatch(/^fnd_\d+$/);

  const acted: string[] = [];
  for (const [action, body] of [
    ['acknowledge', {}],
    ['notes', { note: 'a note changes no status' }],
    ['accept', { note: 'negotiated rate' }],
    ['reopen', { note: 'rate expired' }],
  ] as const) {
    const response = await request(t.app).post(`/api/findings/${id}/${action}`).set(auth).send(body);
    expect(response.status).toBe(200);
    acted.push(new Date().toISOString());
  }
  const resolvedAt = new Date('2026-11-04T09:00:00Z');
  await recordFindings(t.pool, context(resolvedAt), []);

  const changes = await readWholeFeed(t);
  expect(
    changes.map(({ type, object, object_id, object_version, account_id, account_type, event_ids }) => ({
      type,
      object,
      object_id,
      object_version,
      account_id,
      account_type,
      event_ids,
    })),
  ).toEqual(
    ['opened', 'acknowledged', 'accepted', 'reopened', 'resolved'].map((action, index) => ({
      type: `finding.${action}`,
      object: 'finding',
      object_id: id,
      object_version: index + 1,
      account_id: 'acc_fc',
      account_type: null,
      event_ids: [],
    })),
  );
  expect(changes[0]?.occurred_at).toBe(openedAt.toISOString());
  expect(changes.map((change) => change.data.status)).toEqual([
    'open',
    'acknowledged',
    'accepted',
    'open',
    'resolved',
  ]);
  // A person's action: at the time of the action.
  const actionTime = (index: number) => new Date(changes[index]?.occurred_at as string).getTime();
  expect(actionTime(1)).toBeLessThanOrEqual(new Date(acted[0] as string).getTime());
  expect(actionTime(1)).toBeGreaterThan(Date.now() - 60_000);
  expect(changes[4]?.occurred_at).toBe(resolvedAt.toISOString());
  const shown = await request(t.app).get(`/api/findings/${id}`).set(auth);
  expect(changes[4]?.data).toEqual(shown.body.data);
  expect(changes[1]?.data.history).toEqual([
    expect.objectContaining({
      actor: 'admin',
      action: 'acknowledge',
      old_status: 'open',
      new_status: 'acknowledged',
    }),
  ]);
});
