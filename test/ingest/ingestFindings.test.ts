import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent, postSigned } from '../helpers/deliveries.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const findingsOf = async (code: string) =>
  (
    await t.pool.query(
      `select code, severity, status, subject_type, subject_id, expected, actual, at_stake, details from findings
        where code = $1 order by id`,
      [code],
    )
  ).rows;

const hashOf = async (sql: string, value: string) => (await t.pool.query(sql, [value])).rows;

describe('findings opened at ingest', () => {
  it('a body delivered under a stored event id with other bytes opens event_id_conflict, once per event', async () => {
    const event = paymentEvent({ id: 'evt_conflict_1' });
    expect((await postSigned(t.app, event)).status).toBe(200);
    const changed = { ...event, data: { ...event.data, amount: 9999 } };
    const changedAgain = { ...event, data: { ...event.data, amount: 1 } };
    expect((await postSigned(t.app, changed)).body).toMatchObject({ received: true, duplicate: false });
    expect((await postSigned(t.app, changedAgain)).status).toBe(200);
    // The same conflicting body again adds nothing.
    expect((await postSigned(t.app, changedAgain)).status).toBe(200);

    const stored = await hashOf(
      `select encode(body_sha256, 'hex') as hash, received_at from events where event_id = $1`,
      'evt_conflict_1',
    );
    const conflicting = await hashOf(
      `select encode(body_sha256, 'hex') as hash, received_at from event_conflicts where event_id = $1 order by id`,
      'evt_conflict_1',
    );
    expect(conflicting).toHaveLength(2);
    const iso = (value: Date) => value.toISOString();
    expect(await findingsOf('event_id_conflict')).toEqual([
      {
        code: 'event_id_conflict',
        severity: 'warning',
        status: 'open',
        subject_type: 'event',
        subject_id: 'evt_conflict_1',
        expected: stored[0].hash,
        // A delivery's body measures no money.
        at_stake: null,
        actual: conflicting[1].hash,
        details: {
          stored: { body_sha256: stored[0].hash, received_at: iso(stored[0].received_at) },
          conflicting: conflicting.map((row) => ({
            body_sha256: row.hash,
            received_at: iso(row.received_at),
          })),
        },
      },
    ]);
  });

  it('an accepted event_id_conflict stays accepted for the same body, and a new conflicting body opens a new one', async () => {
    const event = paymentEvent({ id: 'evt_conflict_accepted' });
    const first = { ...event, data: { ...event.data, amount: 7 } };
    const second = { ...event, data: { ...event.data, amount: 8 } };
    await postSigned(t.app, event);
    await postSigned(t.app, first);
    const opened = await t.pool.query(`select id from findings where subject_id = 'evt_conflict_accepted'`);
    const accepted = await request(t.app)
      .post(`/api/findings/fnd_${opened.rows[0].id}/accept`)
      .set('Authorization', `Bearer ${API_TOKEN}`)
      .send({ note: 'the provider re-sent a corrected body' });
    expect(accepted.status).toBe(200);
    await postSigned(t.app, first);
    const statuses = async () =>
      (
        await t.pool.query(
          `select status, actual from findings where subject_id = 'evt_conflict_accepted' order by id`,
        )
      ).rows;
    const hashOfBody = (body: object) => createHash('sha256').update(JSON.stringify(body)).digest('hex');
    expect(await statuses()).toEqual([{ status: 'accepted', actual: hashOfBody(first) }]);

    await postSigned(t.app, second);
    expect(await statuses()).toEqual([
      { status: 'resolved', actual: hashOfBody(first) },
      { status: 'open', actual: hashOfBody(second) },
    ]);
    const history = await t.pool.query(
      `select actor, action, old_status, new_status from finding_history where finding_id = $1 order by id`,
      [opened.rows[0].id],
    );
    expect(history.rows.at(-1)).toEqual({
      actor: 'tally',
      action: 'supersede',
      old_status: 'accepted',
      new_status: 'resolved',
    });
  });

  it('a signed delivery that is not a valid envelope opens event_quarantined with the reason', async () => {
    const response = await postSigned(t.app, { id: 'evt_bad_1', event_name: 'payment.created' });
    expect(response.status).toBe(200);
    const { rows } = await t.pool.query(
      `select id, encode(body_sha256, 'hex') as hash, quarantine_reason, received_at from events where status = 'quarantined'`,
    );
    expect(rows).toHaveLength(1);
    const [finding] = await findingsOf('event_quarantined');
    expect(finding).toMatchObject({
      severity: 'error',
      status: 'open',
      at_stake: null,
      subject_type: 'event',
      subject_id: String(rows[0].id),
      expected: null,
      actual: rows[0].quarantine_reason,
      details: {
        delivery_id: rows[0].id,
        reason: rows[0].quarantine_reason,
        body_sha256: rows[0].hash,
        received_at: rows[0].received_at.toISOString(),
      },
    });
    expect(rows[0].quarantine_reason).toMatch(/account_id/);
    // Redelivered, the same quarantined body is a duplicate: no second finding.
    await postSigned(t.app, { id: 'evt_bad_1', event_name: 'payment.created' });
    expect(await findingsOf('event_quarantined')).toHaveLength(1);
  });
});
