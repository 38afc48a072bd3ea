import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFindingAuditTrail } from '../../src/findings/auditTrail.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE_TOKEN, deliverPayment, findingsOf, READ_TOKEN, TOKENS_ENV } from './workflow/helpers.ts';

// 1 November 2026 is the day New York leaves daylight saving time: a business day of 25 hours,
// from 04:00 UTC to 05:00 UTC the next day.
const ZONE = 'America/New_York';
let clock = new Date('2026-11-01T00:00:00.000Z');
let t: TestApp;
let startId = '';
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

async function openFindingAt(at: string, paymentId: string) {
  clock = new Date(at);
  await deliverPayment(t, paymentId, 71, 'acc_flow', clock);
  const [finding] = await findingsOf(t, API_TOKEN, paymentId);
  return finding?.id as string;
}

async function changeAt(at: string, path: string, token: string, note?: string) {
  clock = new Date(at);
  const response = await request(t.app)
    .post(path)
    .set(as(token))
    .send(note === undefined ? {} : { note });
  expect(response.status).toBe(200);
}

async function auditTrail(query: string, token = READ_TOKEN) {
  const response = await request(t.app).get(`/api/findings.csv?${query}`).set(as(token));
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
  const [header, ...rows] = parse(response.text) as string[][];
  return {
    header,
    rows: rows.map((row) => Object.fromEntries(header?.map((name, i) => [name, row[i]]) ?? [])),
  };
}

beforeAll(async () => {
  t = await startTestApp({
    env: { ...TOKENS_ENV, BUSINESS_TIME_ZONE: ZONE },
    worker: true,
    now: () => clock,
  });
  // The last second of 31 October in New York (already 1 November in UTC).
  await openFindingAt('2026-11-01T03:59:59.000Z', 'py_audit_before');
  // Midnight opening 1 November in New York.
  startId = await openFindingAt('2026-11-01T04:00:00.000Z', 'py_audit_start');
  // 23:30 on 1 November in New York, the 25th hour of the day (already 2 November in UTC).
  await openFindingAt('2026-11-02T04:30:00.000Z', 'py_audit_late');
  // Midnight opening 2 November in New York.
  await openFindingAt('2026-11-02T05:00:00.000Z', 'py_audit_next');

  await changeAt('2026-11-02T14:00:00.000Z', `/api/findings/${startId}/acknowledge`, ALICE_TOKEN);
  await changeAt('2026-11-02T14:05:00.000Z', `/api/findings/${startId}/notes`, API_TOKEN, '=HYPERLINK("x")');
  await changeAt(
    '2026-11-02T14:10:00.000Z',
    `/api/findings/${startId}/accept`,
    ALICE_TOKEN,
    '-1 cent, "agreed", see mail\nfrom the provider',
  );
  // The payment delivered again with its fees adding up: reconciliation resolves the accepted finding.
  clock = new Date('2026-11-02T14:15:00.000Z');
  await deliverPayment(t, 'py_audit_start', 70, 'acc_flow', clock);
});
afterAll(() => t.close());

describe('GET /api/findings.csv, the audit trail', () => {
  it('answers every column of a finding, one row per history entry, oldest first', async () => {
    const { header, rows } = await auditTrail('from=2026-11-01&to=2026-11-01&code=fee_total_mismatch');
    expect(header).toEqual([
      ...['finding_id', 'code', 'severity', 'status', 'subject_type', 'subject_id', 'account_id', 'currency'],
      ...['expected', 'actual', 'at_stake', 'at_stake_decimal', 'first_seen_at', 'first_seen_day'],
      ...['last_seen_at', 'resolved_at', 'action', 'old_status', 'new_status', 'actor', 'note', 'at'],
    ]);
    const finding = {
      finding_id: startId,
      code: 'fee_total_mismatch',
      severity: 'error',
      status: 'resolved',
      subject_type: 'payment',
      subject_id: 'py_audit_start',
      account_id: 'acc_flow',
      currency: 'usd',
      expected: '71',
      actual: '70',
      at_stake: '1',
      at_stake_decimal: '0.01',
      first_seen_at: '2026-11-01T04:00:00.000Z',
      first_seen_day: '2026-11-01',
      last_seen_at: '2026-11-01T04:00:00.000Z',
      resolved_at: '2026-11-02T14:15:00.000Z',
    };
    const history = (action: string, old: string, next: string, actor: string, note: string, at: string) => ({
      ...finding,
      ...{ action, old_status: old, new_status: next, actor, note, at },
    });
    expect(rows.filter((row) => row.finding_id === startId)).toEqual([
      history('acknowledge', 'open', 'acknowledged', 'alice', '', '2026-11-02T14:00:00.000Z'),
      // Notes a spreadsheet would run as a formula start with a single quote.
      history(
        'note',
        'acknowledged',
        'acknowledged',
        'admin',
        `'=HYPERLINK("x")`,
        '2026-11-02T14:05:00.000Z',
      ),
      history(
        'accept',
        'acknowledged',
        'accepted',
        'alice',
        `'-1 cent, "agreed", see mail\nfrom the provider`,
        '2026-11-02T14:10:00.000Z',
      ),
      history('resolve', 'accepted', 'resolved', 'tally', '', '2026-11-02T14:15:00.000Z'),
    ]);
  });

  it('takes findings first seen on the business days of the range, a 25-hour day whole', async () => {
    const subjects = async (query: string) =>
      [...new Set((await auditTrail(query)).rows.map((row) => row.subject_id))].sort();
    expect(await subjects('from=2026-11-01&to=2026-11-01')).toEqual(['py_audit_late', 'py_audit_start']);
    expect(await subjects('from=2026-10-31&to=2026-10-31')).toEqual(['py_audit_before']);
    expect(await subjects('from=2026-11-02&to=2026-11-30')).toEqual(['py_audit_next']);
    expect(await subjects('from=2026-10-01&to=2026-11-02')).toEqual([
      'py_audit_before',
      'py_audit_late',
      'py_audit_next',
      'py_audit_start',
    ]);
    expect(await subjects('from=2026-11-03&to=2026-12-31')).toEqual([]);
  });

  it('answers a finding with no history as one row with empty history columns', async () => {
    const { rows } = await auditTrail('from=2026-11-01&to=2026-11-01&status=open');
    expect(rows).toEqual([
      expect.objectContaining({
        subject_id: 'py_audit_late',
        status: 'open',
        first_seen_at: '2026-11-02T04:30:00.000Z',
        first_seen_day: '2026-11-01',
        action: '',
        old_status: '',
        new_status: '',
        actor: '',
        note: '',
        at: '',
      }),
    ]);
  });

  it('filters by status and code', async () => {
    const resolved = await auditTrail('from=2026-10-01&to=2026-11-30&status=resolved');
    expect(new Set(resolved.rows.map((row) => row.finding_id))).toEqual(new Set([startId]));
    const none = await auditTrail('from=2026-10-01&to=2026-11-30&code=ach_return');
    expect(none.header).toContain('finding_id');
    expect(none.rows).toEqual([]);
  });

  it('reads a batch of findings at a time without losing or repeating a row at a batch edge', async () => {
    const filter = { fromDay: '2026-10-01', toDay: '2026-11-30', timeZone: ZONE };
    const all = async (batchSize: number) => {
      const rows = [];
      for await (const row of readFindingAuditTrail(t.pool, filter, batchSize)) rows.push(row);
      return rows;
    };
    const whole = await all(500);
    expect(whole).toHaveLength(7);
    expect(await all(1)).toEqual(whole);
    expect(await all(2)).toEqual(whole);
    expect(await all(4)).toEqual(whole);
  });

  it('refuses bad input with 400 naming the parameter, and needs a token', async () => {
    const cases: [string, string][] = [
      ['to=2026-11-01', 'from'],
      ['from=2026-11-01', 'to'],
      ['from=2026-13-01&to=2026-12-01', 'from'],
      ['from=2026-11-01&to=01/11/2026', 'to'],
      ['from=2026-11-02&to=2026-11-01', 'to'],
      ['from=2026-11-01&from=2026-11-02&to=2026-11-03', 'from'],
      ['from=2026-11-01&to=2026-11-01&status=closed', 'status'],
      ['from=2026-11-01&to=2026-11-01&code=%01', 'code'],
      ['from=2026-11-01&to=2026-11-01&code=%FF', 'code'],
    ];
    for (const [query, parameter] of cases) {
      const response = await request(t.app).get(`/api/findings.csv?${query}`).set(as(READ_TOKEN));
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({
        query,
        status: 400,
        code: 'invalid_parameter',
      });
      expect(response.body.error.message).toMatch(new RegExp(`^${parameter}: `));
    }
    expect((await request(t.app).get('/api/findings.csv?from=2026-11-01&to=2026-11-01')).status).toBe(401);
  });
});
