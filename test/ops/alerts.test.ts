import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import alertScan from '../../jobs/alert-scan.ts';
import captureExpiryScan from '../../jobs/capture-expiry-scan.ts';
import sendAlert from '../../jobs/send-alert.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { withTransaction } from '../../src/db/pool.ts';
import type { FindingDraft } from '../../src/findings/findings.ts';
import { recordFindings } from '../../src/findings/recordFindings.ts';
import type { JobContext } from '../../src/queue/job.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';

const SECRET = 'alert_signing_secret_0123456789';
const MINUTE = 60_000;

let t: TestApp;
const context = (now: Date, env: Record<string, string> = {}): JobContext => ({
  ...t,
  config: loadConfig({
    ...env,
    DATABASE_URL: t.databaseUrl,
    WEBHOOK_SECRETS: 'whsec_unused_by_this_test_0123456789',
  }) as Config,
  now: () => now,
});
const scan = (now: Date, env: Record<string, string> = {}) => alertScan.handle({}, context(now, env), 'scan');
const send = (alertId: number, now: Date, env: Record<string, string>) =>
  sendAlert.handle({ alert_id: alertId }, context(now, env), 'send');

/** Opens (or refreshes) findings through the finding store, as a reconciliation run does. */
const open = (scope: string, findings: FindingDraft[], now = new Date()) =>
  withTransaction(t.pool, (client) =>
    recordFindings(client, { scope, accountId: 'acc_sub_1', currency: 'usd', now }, findings),
  );
const mismatch = (paymentId: string, expected: number, actual: number): FindingDraft => ({
  code: 'fee_total_mismatch',
  severity: 'error',
  subjectType: 'payment',
  subjectId: paymentId,
  expected,
  actual,
  atStake: Math.abs(expected - actual),
  details: { payment_id: paymentId },
});

async function alertsOf(kind?: string) {
  const { rows } = await t.pool.query(
    `select id, dedupe_key, kind, subject_id, status, payload, finding_id, digest_id from alerts
      where $1::text is null or kind = $1::text order by id`,
    [kind ?? null],
  );
  return rows;
}

// An endpoint that records what it receives; `failing` makes it answer 500.
type Received = { path: string; headers: IncomingHttpHeaders; body: string };
let server: Server;
let base: string;
const received: Received[] = [];
const failing = new Set<string>();

beforeAll(async () => {
  t = await startTestApp({ worker: true, workerJobs: ['process-event', 'reconcile-payments'] });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.statusCode = failing.has(req.url ?? '') ? 500 : 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});
beforeEach(async () => {
  await t.pool.query('truncate alerts, findings, opened_findings, disputes, payments cascade');
  received.length = 0;
  failing.clear();
});

describe('alerts for opened findings', () => {
  it('a chosen code alerts once per finding, through send-alert; other codes and refreshes do not', async () => {
    const env = { ALERT_FINDING_CODES: 'fee_total_mismatch', ALERT_WEBHOOK_URL: `${base}/slack` };
    await open('payment:py_a1', [mismatch('py_a1', 1000, 1250)]);
    await open('payment:py_a2', [
      { ...mismatch('py_a2', 1, 2), code: 'platform_fee_missing', severity: 'warning' },
    ]);
    const now = new Date();
    await Promise.all([scan(now, env), scan(now, env), scan(now, env)]);
    await open('payment:py_a1', [mismatch('py_a1', 1000, 1300)]);
    // Refreshing the open finding (the upsert's `on conflict do update`) is not an opening.
    const recorded = await t.pool.query('select count(*)::int as n from opened_findings');
    expect(recorded.rows[0].n).toBe(0);
    await scan(now, env);

    const finding = await t.pool.query(`select id from findings where subject_id = 'py_a1'`);
    const findingId = finding.rows[0].id as number;
    const alerts = await alertsOf();
    expect(alerts).toEqual([
      {
        id: expect.any(Number),
        dedupe_key: `finding:${findingId}`,
        kind: 'fee_total_mismatch',
        subject_id: 'py_a1',
        status: 'pending',
        finding_id: findingId,
        digest_id: null,
        payload: {
          finding_id: findingId,
          code: 'fee_total_mismatch',
          severity: 'error',
          subject_type: 'payment',
          subject_id: 'py_a1',
          account_id: 'acc_sub_1',
          currency: 'usd',
          expected: 1000,
          actual: 1250,
          at_stake: 250,
          details: { payment_id: 'py_a1' },
          opened_at: expect.any(String),
          console_path: `/console/findings/${findingId}`,
        },
      },
    ]);
    const jobs = await t.boss.findJobs('send-alert', { data: { alert_id: alerts[0].id } });
    expect(jobs).toHaveLength(1);

    await send(alerts[0].id, now, env);
    await send(alerts[0].id, now, env);
    expect(received).toHaveLength(1);
    const message = JSON.parse(received[0]?.body as string);
    expect(message.text).toBe(
      `Finding fee_total_mismatch (error) opened on payment py_a1: 2.50 USD at stake. Console: /console/findings/${findingId}`,
    );
    expect(message.attachments[0].color).toBe('danger');
    expect(message.tally).toMatchObject({
      alert_id: alerts[0].id,
      kind: 'fee_total_mismatch',
      at_stake: 250,
    });
  });

  it('dispute_lost alerts by default, from a delivered dispute', async () => {
    await deliver(t.app, [
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.dispute.closed',
          data: {
            id: 'dp_lost_1',
            payment_id: 'py_disputed_1',
            amount: 4200,
            currency: 'usd',
            reason: 'fraudulent',
            due_date: '2026-11-20',
            status: 'lost',
            created_at: '2026-11-03T09:00:00Z',
            updated_at: '2026-11-10T09:00:00Z',
          },
        }),
      ),
    ]);
    await settle(t);
    await scan(new Date());
    const alerts = await alertsOf();
    expect(alerts.map((alert) => [alert.kind, alert.subject_id, alert.payload.at_stake])).toEqual([
      ['dispute_lost', 'dp_lost_1', 4200],
    ]);
  });

  it('with ALERT_FINDING_CODES not naming them, capture expiry raises no alert', async () => {
    await deliver(t.app, [
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.authorized',
          data: {
            id: 'py_cap_quiet',
            amount: 500,
            currency: 'usd',
            status: 'authorized',
            capture_strategy: 'manual',
            updated_at: '2026-11-01T00:00:00Z',
          },
        }),
      ),
    ]);
    await settle(t);
    const late = new Date(Date.parse('2026-11-08T00:00:00Z') - 3600_000);
    const quiet = context(late, { ALERT_FINDING_CODES: 'fee_total_mismatch' });
    await captureExpiryScan.handle({}, quiet, 'scan');
    await scan(late, { ALERT_FINDING_CODES: 'fee_total_mismatch' });
    const findings = await t.pool.query(`select code from findings where subject_id = 'py_cap_quiet'`);
    expect(findings.rows).toEqual([{ code: 'capture_expiring' }]);
    expect(await alertsOf()).toEqual([]);
  });

  it('an unknown code in ALERT_FINDING_CODES fails at boot, listing the valid ones', () => {
    expect(() => loadConfig({ ALERT_FINDING_CODES: 'dispute_lost,fee_mismatch' })).toThrow(
      /ALERT_FINDING_CODES\.1: is not a finding code; valid: fee_total_mismatch, fee_amount_mismatch, .*dispute_lost/,
    );
  });
});

describe('digests', () => {
  it('one message per destination for a window: counts by code, money at stake, top items; resolved findings dropped; sent once by several workers', async () => {
    const env = {
      ALERT_FINDING_CODES: 'fee_total_mismatch,ach_return',
      ALERT_DIGEST_MINUTES: '15',
      ALERT_WEBHOOK_URL: `${base}/slack`,
      ALERT_SIGNED_WEBHOOK_URL: `${base}/signed`,
      ALERT_WEBHOOK_SECRET: SECRET,
    };
    const windowStart = new Date('2026-11-20T10:15:00Z');
    const at = (minutes: number) => new Date(windowStart.getTime() + minutes * MINUTE);
    await open('payment:py_d1', [mismatch('py_d1', 1000, 1500)]);
    await open('payment:py_d2', [mismatch('py_d2', 300, 100)]);
    await open('payment:py_d3', [
      {
        code: 'ach_return',
        severity: 'error',
        subjectType: 'payment',
        subjectId: 'py_d3',
        expected: null,
        actual: null,
        atStake: 7000,
        details: { amount: 7000, code: 'R01' },
      },
    ]);
    await open('payment:py_d4', [mismatch('py_d4', 100, 9999)]);
    await scan(at(2), env);
    expect((await alertsOf()).map((alert) => alert.status)).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    for (const alert of await alertsOf())
      expect(await t.boss.findJobs('send-alert', { data: { alert_id: alert.id } })).toEqual([]);

    // py_d4 is fixed before the digest goes out; nothing is due before the window ends.
    await open('payment:py_d4', []);
    await scan(at(14), env);
    expect(await alertsOf('digest')).toEqual([]);
    await Promise.all([scan(at(15), env), scan(at(15), env), scan(at(16), env)]);

    const digests = await alertsOf('digest');
    expect(digests).toHaveLength(1);
    const digest = digests[0];
    expect(await t.boss.findJobs('send-alert', { data: { alert_id: digest.id } })).toHaveLength(1);
    const members = await alertsOf();
    expect(
      members.filter((alert) => alert.kind !== 'digest').map((alert) => [alert.subject_id, alert.status]),
    ).toEqual([
      ['py_d1', 'digested'],
      ['py_d2', 'digested'],
      ['py_d3', 'digested'],
      ['py_d4', 'dropped'],
    ]);
    const ids = Object.fromEntries(members.map((alert) => [alert.subject_id, alert.id]));
    const findings = await t.pool.query(`select subject_id, id from findings`);
    const findingIds = Object.fromEntries(findings.rows.map((row) => [row.subject_id, row.id]));
    expect(digest.payload).toEqual({
      window_end: '2026-11-20T10:30:00.000Z',
      window_minutes: 15,
      alerts: 3,
      dropped_resolved: 1,
      by_code: [
        { code: 'ach_return', alerts: 1, at_stake: [{ currency: 'usd', cents: 7000 }] },
        { code: 'fee_total_mismatch', alerts: 2, at_stake: [{ currency: 'usd', cents: 700 }] },
      ],
      at_stake: [{ currency: 'usd', cents: 7700 }],
      top: ['py_d3', 'py_d1', 'py_d2'].map((subject) => ({
        alert_id: ids[subject],
        code: subject === 'py_d3' ? 'ach_return' : 'fee_total_mismatch',
        subject_id: subject,
        account_id: 'acc_sub_1',
        at_stake: { py_d3: 7000, py_d1: 500, py_d2: 200 }[subject],
        currency: 'usd',
        console_path: `/console/findings/${findingIds[subject]}`,
      })),
      console_path: '/console/findings?status=open',
    });

    await send(digest.id, at(16), env);
    await send(digest.id, at(17), env);
    expect(received.map((request) => request.path)).toEqual(['/slack', '/signed']);
    const slack = JSON.parse(received[0]?.body as string);
    expect(slack.text).toBe(
      '3 alert(s) up to 2026-11-20T10:30:00.000Z: 1 ach_return, 2 fee_total_mismatch; at stake 77.00 USD. Console: /console/findings?status=open',
    );
    expect(JSON.parse(received[1]?.body as string)).toMatchObject({ kind: 'digest', alerts: 3 });
  });
});

describe('signed alert webhook', () => {
  const verify = (request: Received) => {
    const timestamp = request.headers['tally-timestamp'] as string;
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${request.body}`).digest();
    const given = Buffer.from(request.headers['tally-signature'] as string, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  it('is plain JSON signed with HMAC-SHA256 over "<timestamp>.<body>"; a destination that is down delays only itself', async () => {
    const env = {
      ALERT_FINDING_CODES: 'fee_total_mismatch',
      ALERT_WEBHOOK_URL: `${base}/slack`,
      ALERT_SIGNED_WEBHOOK_URL: `${base}/signed`,
      ALERT_WEBHOOK_SECRET: SECRET,
    };
    await open('payment:py_s1', [mismatch('py_s1', 100, 175)]);
    const now = new Date('2026-11-21T08:00:00Z');
    await scan(now, env);
    const [alert] = await alertsOf();

    failing.add('/signed');
    await expect(send(alert.id, now, env)).rejects.toThrow(/not delivered to signed \(HTTP 500\)/);
    failing.clear();
    await send(alert.id, new Date(now.getTime() + MINUTE), env);
    await send(alert.id, new Date(now.getTime() + 2 * MINUTE), env);

    expect(received.map((request) => request.path)).toEqual(['/slack', '/signed', '/signed']);
    const signed = received[2] as Received;
    expect(verify(signed)).toBe(true);
    expect(signed.headers['tally-timestamp']).toBe(String(Math.floor(now.getTime() / 1000) + 60));
    expect(signed.headers['tally-alert-id']).toBe(String(alert.id));
    expect(signed.headers['content-type']).toBe('application/json');
    expect(JSON.parse(signed.body)).toEqual({
      alert_id: alert.id,
      kind: 'fee_total_mismatch',
      created_at: now.toISOString(),
      ...alert.payload,
    });
    // One byte changed, or another secret: the receiver refuses it.
    expect(verify({ ...signed, body: signed.body.replace('py_s1', 'py_s2') })).toBe(false);

    const row = await t.pool.query(
      `select status, attempts, last_error, deliveries from alerts where id = $1`,
      [alert.id],
    );
    expect(row.rows[0]).toEqual({
      status: 'sent',
      attempts: 3,
      last_error: null,
      deliveries: {
        slack: { status: 'sent', attempts: 1, last_error: null, sent_at: now.toISOString() },
        signed: {
          status: 'sent',
          attempts: 2,
          last_error: null,
          sent_at: new Date(now.getTime() + MINUTE).toISOString(),
        },
      },
    });
  });
});

describe('dispute deadlines', () => {
  it('alert at each DISPUTE_ALERT_DAYS threshold before an open dispute is due, once each', async () => {
    await deliver(t.app, [
      JSON.stringify(
        paymentEvent({
          event_name: 'payment.dispute.created',
          data: {
            id: 'dp_due_1',
            payment_id: 'py_due_1',
            amount: 2500,
            currency: 'usd',
            reason: 'product_not_received',
            due_date: '2026-12-10',
            status: 'needs_response',
            created_at: '2026-11-25T09:00:00Z',
            updated_at: '2026-11-25T09:00:00Z',
          },
        }),
      ),
    ]);
    await settle(t);
    const day = (date: string, time = '12:00:00') => new Date(`${date}T${time}Z`);
    const keys = async () => (await alertsOf('dispute_due')).map((alert) => alert.dedupe_key);

    await scan(day('2026-12-06'));
    expect(await keys()).toEqual([]);
    await scan(day('2026-12-07', '00:00:00'));
    await scan(day('2026-12-07', '23:00:00'));
    await scan(day('2026-12-08'));
    expect(await keys()).toEqual(['dispute_due:dp_due_1:3']);
    await scan(day('2026-12-09'));
    await scan(day('2026-12-10'));
    await scan(day('2026-12-11'));
    expect(await keys()).toEqual(['dispute_due:dp_due_1:3', 'dispute_due:dp_due_1:1']);
    const [, last] = await alertsOf('dispute_due');
    const finding = await t.pool.query(`select id from findings where code = 'dispute_open'`);
    expect(last).toMatchObject({
      subject_id: 'dp_due_1',
      finding_id: finding.rows[0].id,
      payload: {
        dispute_id: 'dp_due_1',
        payment_id: 'py_due_1',
        account_id: 'acc_sub_1',
        amount: 2500,
        currency: 'usd',
        reason: 'product_not_received',
        status: 'needs_response',
        due_date: '2026-12-10',
        days_left: 1,
        threshold_days: 1,
      },
    });

    // Other thresholds: DISPUTE_ALERT_DAYS=7 alerts a week before (4 days left is within it).
    await scan(day('2026-12-06'), { DISPUTE_ALERT_DAYS: '7' });
    expect((await keys()).at(-1)).toBe('dispute_due:dp_due_1:7');
  });
});
