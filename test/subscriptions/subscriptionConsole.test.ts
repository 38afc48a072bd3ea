import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, signIn, textOf } from '../console/signIn.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { appendChanges } from './helpers.ts';

const READ_TOKEN = 'read-token-0123456789abcdef';
let t: TestApp;
let id: string;
let row: number;
beforeAll(async () => {
  t = await startTestApp({ env: { API_TOKENS: `viewer:read:${READ_TOKEN}` } });
  const { rows } = await t.pool.query<{ id: number }>(
    `insert into subscriptions (url, types, description, secret, queued_through, failing_since)
     values ('http://127.0.0.1:9/<b>hook</b>', '{payment.*}', '<script>alert(1)</script>', 'whsec_c2VjcmV0', 0,
             now() - interval '1 hour')
     returning id`,
  );
  row = rows[0]?.id as number;
  id = `sub_${row}`;
  await appendChanges(t.pool, [{ type: 'payment.created', object_id: 'py_console', object_version: 1 }]);
  await t.pool.query(
    `insert into subscription_deliveries (subscription_id, seq, object, object_id, recorded_at, attempts)
     select $1, seq, object, object_id, recorded_at - interval '200 seconds', 2 from changes`,
    [row],
  );
  await t.pool.query(
    `update subscriptions set queued_through = (select last_seq from change_sequencer) where id = $1`,
    [row],
  );
  await t.pool.query(
    `insert into subscription_attempts (subscription_id, seq, attempted_at, outcome, status_code, duration_ms, error)
     values ($1, 1, now(), 'redirect', 302, 15, 'redirects are not followed')`,
    [row],
  );
});
afterAll(() => t.close());

describe('the Subscriptions console page', () => {
  it('lists each subscription with its state, lag and waiting changes, escaping what it shows', async () => {
    const agent = await signIn(t, READ_TOKEN);
    const { response, html } = await page(agent, '/console/subscriptions');
    expect(response.status).toBe(200);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<b>hook</b>');
    expect(html).not.toContain('whsec_');
    const text = textOf(html);
    expect(text).toContain(id);
    expect(text).toContain('http://127.0.0.1:9/<b>hook</b>');
    expect(text).toMatch(/failing\s*3 min 2\d s\s*1\s*0/);
  });

  it('shows one subscription’s facts and recent failures; a read token gets no forms', async () => {
    const agent = await signIn(t, READ_TOKEN);
    const { html } = await page(agent, `/console/subscriptions/${id}`);
    const text = textOf(html);
    expect(text).toContain('Typespayment.*');
    expect(text).toMatch(/Lag3 min 2\d s/);
    expect(text).toContain('redirects are not followed');
    expect(text).toContain('302');
    expect(html).not.toContain('/replay');
    const refused = await agent
      .post(`/console/subscriptions/${id}/disable`)
      .type('form')
      .send({ _csrf: 'x' });
    expect(refused.status).toBe(403);
    expect(
      await page(agent, '/console/subscriptions/sub_999999').then((answer) => answer.response.status),
    ).toBe(404);
  });

  it('disables, enables and replays for an admin, each form CSRF-checked', async () => {
    const agent = await signIn(t, API_TOKEN);
    const detail = await page(agent, `/console/subscriptions/${id}`);
    const noToken = await agent.post(`/console/subscriptions/${id}/disable`).type('form').send({});
    expect(noToken.status).toBe(403);
    const disabled = await agent
      .post(`/console/subscriptions/${id}/disable`)
      .type('form')
      .send({ _csrf: detail.csrf() });
    expect([disabled.status, disabled.headers.location]).toEqual([
      303,
      `/console/subscriptions/${id}?done=disabled`,
    ]);
    const after = await page(agent, disabled.headers.location as string);
    expect(textOf(after.html)).toContain('Subscription disabled.');
    expect(textOf(after.html)).toMatch(/Statedisabled \(by hand/);
    const enabled = await agent
      .post(`/console/subscriptions/${id}/enable`)
      .type('form')
      .send({ _csrf: after.csrf() });
    expect(enabled.status).toBe(303);
    const { rows } = await t.pool.query('select enabled, disabled_reason from subscriptions where id = $1', [
      row,
    ]);
    expect(rows[0]).toEqual({ enabled: true, disabled_reason: null });
    await t.pool.query(`delete from subscription_deliveries where subscription_id = $1`, [row]);
    const replayed = await agent
      .post(`/console/subscriptions/${id}/replay`)
      .type('form')
      .send({ _csrf: after.csrf(), after: '' });
    expect([replayed.status, replayed.headers.location]).toEqual([
      303,
      `/console/subscriptions/${id}?done=replayed`,
    ]);
    const queued = await t.pool.query(
      'select count(*)::int as n from subscription_deliveries where subscription_id = $1',
      [row],
    );
    expect(queued.rows[0].n).toBe(1);
    const bad = await agent
      .post(`/console/subscriptions/${id}/replay`)
      .type('form')
      .send({ _csrf: after.csrf(), after: 'nope' });
    expect(bad.status).toBe(422);
    expect(textOf(bad.text)).toContain('after: is not a cursor');
  });
});
