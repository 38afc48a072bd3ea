import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // Three findings first seen on three days (UTC), the middle one at the last second of its day.
  await t.pool.query(
    `insert into findings (code, severity, status, subject_type, subject_id, currency, expected, actual, scope,
                           first_seen_at, last_seen_at, at_stake)
     select 'payout_not_in_bank', 'error', 'open', 'payout', subject, 'usd', '1', '2', 'payout:' || subject,
            seen, seen, 100
       from (values ('po_day_1', timestamptz '2026-10-01 00:00:00+00'),
                    ('po_day_2', timestamptz '2026-10-02 23:59:59+00'),
                    ('po_day_3', timestamptz '2026-10-03 00:00:00+00')) as days(subject, seen)`,
  );
});
afterAll(() => t.close());

const subjects = async (query: string) => {
  const response = await request(t.app).get(`/api/findings?${query}`).auth(API_TOKEN, { type: 'bearer' });
  expect(response.status).toBe(200);
  return response.body.data.map((finding: { subject_id: string }) => finding.subject_id);
};

describe('GET /api/findings, filtered as the console filters', () => {
  it('takes `from` and `to` as UTC days of first sight, both included', async () => {
    expect(await subjects('from=2026-10-02&to=2026-10-02')).toEqual(['po_day_2']);
    expect(await subjects('from=2026-10-02')).toEqual(['po_day_3', 'po_day_2']);
    expect(await subjects('to=2026-10-02')).toEqual(['po_day_2', 'po_day_1']);
    expect(await subjects('subject_id=po_day_1&from=2026-10-01')).toEqual(['po_day_1']);
  });

  it('refuses a day that is not one, naming the parameter', async () => {
    const response = await request(t.app)
      .get('/api/findings?from=2026-02-30')
      .auth(API_TOKEN, { type: 'bearer' });
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'invalid_parameter',
      message: 'from: must be a calendar date, YYYY-MM-DD',
    });
  });
});
