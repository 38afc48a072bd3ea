import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import captureExpiryScan from '../../jobs/capture-expiry-scan.ts';
import sendAlert from '../../jobs/send-alert.ts';
import type { JobContext } from '../../src/queue/job.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, drain } from '../helpers/fixtures.ts';

const HOUR = 3_600_000;
const AUTHORIZED = new Date('2026-11-01T00:00:00.000Z');
const EXPIRES = new Date(AUTHORIZED.getTime() + 7 * 24 * HOUR);
const hoursBefore = (hours: number, ms = 0) => new Date(EXPIRES.getTime() - hours * HOUR + ms);

let t: TestApp;
const context = (now: Date, config = t.config): JobContext => ({ ...t, config, now: () => now });
const scan = (now: Date) => captureExpiryScan.handle({}, context(now), 'test');

const authorize = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    paymentEvent({
      event_name: 'payment.authorized',
      data: {
        id,
        amount: 25_000,
        currency: 'usd',
        status: 'authorized',
        capture_strategy: 'manual',
        captured: false,
        updated_at: AUTHORIZED.toISOString(),
        ...extra,
      },
    }),
  );

async function state(paymentId: string) {
  const findings = await t.pool.query(
    `select code, status, details->>'threshold_hours' as threshold from findings where subject_id = $1 order by id`,
    [paymentId],
  );
  const alerts = await t.pool.query(`select dedupe_key from alerts where subject_id = $1 order by id`, [
    paymentId,
  ]);
  return { findings: findings.rows, alerts: alerts.rows.map((row) => row.dedupe_key) };
}

beforeAll(async () => {
  // The alert tests drive send-alert themselves, so its worker is left out.
  t = await startTestApp({ worker: true, workerJobs: ['process-event', 'reconcile-payments'] });
});
afterAll(() => t.close());
beforeEach(async () => {
  // cascade: finding_history rows belong to the findings.
  await t.pool.query('truncate alerts, findings, payments cascade');
});

describe('capture expiry', () => {
  it('crosses 48 h, 24 h and 6 h before expiry and expiry itself, one finding and one alert each, exactly at the edge', async () => {
    await deliver(t.app, [authorize('py_cap_1')]);
    await drain(t);
    await scan(hoursBefore(48, -1));
    expect(await state('py_cap_1')).toEqual({ findings: [], alerts: [] });

    await scan(hoursBefore(48));
    expect(await state('py_cap_1')).toEqual({
      findings: [{ code: 'capture_expiring', status: 'open', threshold: '48' }],
      alerts: ['capture:py_cap_1:48'],
    });
    await scan(hoursBefore(30));
    await scan(hoursBefore(24, -1));
    expect((await state('py_cap_1')).alerts).toEqual(['capture:py_cap_1:48']);

    await scan(hoursBefore(24));
    await scan(hoursBefore(6));
    expect(await state('py_cap_1')).toEqual({
      findings: [{ code: 'capture_expiring', status: 'open', threshold: '6' }],
      alerts: ['capture:py_cap_1:48', 'capture:py_cap_1:24', 'capture:py_cap_1:6'],
    });

    await scan(EXPIRES);
    expect(await state('py_cap_1')).toEqual({
      findings: [
        { code: 'capture_expiring', status: 'resolved', threshold: '6' },
        { code: 'capture_expired', status: 'open', threshold: '0' },
      ],
      alerts: ['capture:py_cap_1:48', 'capture:py_cap_1:24', 'capture:py_cap_1:6', 'capture:py_cap_1:0'],
    });
    const finding = await t.pool.query(
      `select account_id, currency, details from findings where code = 'capture_expired'`,
    );
    expect(finding.rows[0]).toMatchObject({
      account_id: 'acc_sub_1',
      currency: 'usd',
      details: {
        payment_id: 'py_cap_1',
        amount: 25_000,
        currency: 'usd',
        authorized_at: AUTHORIZED.toISOString(),
        expires_at: EXPIRES.toISOString(),
        hours_left: 0,
      },
    });
  });

  it('a capture resolves the finding; a capture before any threshold raises nothing', async () => {
    await deliver(t.app, [authorize('py_cap_2'), authorize('py_cap_3')]);
    await drain(t);
    await scan(hoursBefore(24));
    await deliver(t.app, [
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.captured',
          data: {
            id: 'py_cap_2',
            amount: 25_000,
            currency: 'usd',
            status: 'succeeded',
            capture_strategy: 'manual',
            captured: true,
            updated_at: hoursBefore(20).toISOString(),
          },
        }),
      ),
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.canceled',
          data: {
            id: 'py_cap_3',
            amount: 25_000,
            currency: 'usd',
            status: 'canceled',
            capture_strategy: 'manual',
            captured: false,
            updated_at: hoursBefore(20).toISOString(),
          },
        }),
      ),
    ]);
    await drain(t);
    await scan(hoursBefore(6));
    for (const id of ['py_cap_2', 'py_cap_3']) {
      expect(await state(id)).toEqual({
        findings: [{ code: 'capture_expiring', status: 'resolved', threshold: '24' }],
        alerts: [`capture:${id}:24`],
      });
    }
  });

  it('two workers scanning at once raise one alert', async () => {
    await deliver(t.app, [authorize('py_cap_4')]);
    await drain(t);
    await Promise.all([scan(hoursBefore(6)), scan(hoursBefore(6)), scan(hoursBefore(6))]);
    expect(await state('py_cap_4')).toEqual({
      findings: [{ code: 'capture_expiring', status: 'open', threshold: '6' }],
      alerts: ['capture:py_cap_4:6'],
    });
  });
});

describe('alert delivery', () => {
  let server: Server;
  let url: string;
  const received: unknown[] = [];
  let failing = true;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.statusCode = failing ? 500 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an endpoint that is down is retried, then the alert is sent once, with Slack-compatible JSON', async () => {
    await deliver(t.app, [authorize('py_alert')]);
    await drain(t);
    await scan(hoursBefore(6));
    const { rows } = await t.pool.query(`select id from alerts where subject_id = 'py_alert'`);
    const alertId = rows[0].id as number;
    const config = { ...t.config, ALERT_WEBHOOK_URL: url };
    const send = () => sendAlert.handle({ alert_id: alertId }, context(hoursBefore(5), config), 'job');

    await expect(send()).rejects.toThrow(/HTTP 500/);
    failing = false;
    await send();
    await send();
    expect(received).toHaveLength(2);
    expect(received[1]).toMatchObject({
      text: expect.stringContaining('py_alert'),
      attachments: [
        { fields: expect.arrayContaining([{ title: 'Payment', value: 'py_alert', short: true }]) },
      ],
      tally: {
        payment_id: 'py_alert',
        amount: 25_000,
        currency: 'usd',
        expires_at: EXPIRES.toISOString(),
        threshold_hours: 6,
      },
    });
    const listed = await request(t.app).get('/api/alerts').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(listed.body.data[0]).toMatchObject({
      status: 'sent',
      attempts: 2,
      last_error: null,
      kind: 'capture_expiring',
    });
    const metrics = await request(t.app).get('/metrics').set('Authorization', `Bearer ${API_TOKEN}`);
    expect(metrics.text).toContain('tally_alerts{status="sent"} 1');
  });

  it('without ALERT_WEBHOOK_URL an alert is logged and listed, not sent', async () => {
    await deliver(t.app, [authorize('py_logged')]);
    await drain(t);
    await scan(hoursBefore(6));
    const { rows } = await t.pool.query(`select id from alerts where subject_id = 'py_logged'`);
    await sendAlert.handle({ alert_id: rows[0].id }, context(hoursBefore(5)), 'job');
    const alert = await t.pool.query(`select status, attempts from alerts where id = $1`, [rows[0].id]);
    expect(alert.rows[0]).toEqual({ status: 'logged', attempts: 1 });
    expect(t.logLines.some((line) => line.includes('Capture payment py_logged'))).toBe(true);
  });
});
