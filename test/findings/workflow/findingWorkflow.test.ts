import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseReconciliationAccess, sumMatchRates } from '../../../src/reports/findingQueries.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitForJobs } from '../../helpers/fixtures.ts';
import { ALICE_TOKEN, deliverPayment, findingsOf, READ_TOKEN, TOKENS_ENV } from './helpers.ts';

let t: TestApp;
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await startTestApp({ env: TOKENS_ENV, worker: true });
});
afterAll(() => t.close());

const post = (path: string, token: string, body?: object) =>
  request(t.app)
    .post(path)
    .set(as(token))
    .send(body ?? {});

describe('the finding workflow through the API', () => {
  it('acknowledges, notes, accepts and reopens, each change in the history with its actor', async () => {
    await deliverPayment(t, 'py_flow_1', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_flow_1');
    expect(finding).toMatchObject({ status: 'open', expected: 71, actual: 70 });
    const id = finding?.id as string;

    const acknowledged = await post(`/api/findings/${id}/acknowledge`, ALICE_TOKEN);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.data.status).toBe('acknowledged');
    expect((await post(`/api/findings/${id}/notes`, API_TOKEN, { note: 'asked the provider' })).status).toBe(
      200,
    );
    expect((await post(`/api/findings/${id}/accept`, ALICE_TOKEN, { note: 'negotiated rate' })).status).toBe(
      200,
    );
    const reopened = await post(`/api/findings/${id}/reopen`, API_TOKEN, { note: 'rate expired' });
    expect(reopened.status).toBe(200);

    const read = await request(t.app).get(`/api/findings/${id}`).set(as(READ_TOKEN));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, type: 'finding', page_info: null });
    expect(read.body.data).toMatchObject({
      id,
      code: 'fee_total_mismatch',
      severity: 'error',
      status: 'open',
      subject_type: 'payment',
      subject_id: 'py_flow_1',
      account_id: 'acc_flow',
      currency: 'usd',
      expected: 71,
      actual: 70,
      resolved_at: null,
    });
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(read.body.data.history).toEqual([
      {
        actor: 'alice',
        action: 'acknowledge',
        old_status: 'open',
        new_status: 'acknowledged',
        note: null,
        created_at: at,
      },
      {
        actor: 'admin',
        action: 'note',
        old_status: 'acknowledged',
        new_status: 'acknowledged',
        note: 'asked the provider',
        created_at: at,
      },
      {
        actor: 'alice',
        action: 'accept',
        old_status: 'acknowledged',
        new_status: 'accepted',
        note: 'negotiated rate',
        created_at: at,
      },
      {
        actor: 'admin',
        action: 'reopen',
        old_status: 'accepted',
        new_status: 'open',
        note: 'rate expired',
        created_at: at,
      },
    ]);
  });

  it('keeps a card number pasted into a note as its last four digits', async () => {
    await deliverPayment(t, 'py_flow_card', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_flow_card');
    const id = finding?.id as string;
    const noted = await post(`/api/findings/${id}/notes`, API_TOKEN, {
      note: 'card 4111 1111 1111 1111 disputed',
    });
    expect(noted.status).toBe(200);
    const read = await request(t.app).get(`/api/findings/${id}`).set(as(API_TOKEN));
    expect(read.body.data.history.map((change: { note: string }) => change.note)).toEqual([
      'card ****1111 disputed',
    ]);
    const stored = await t.pool.query(`select note from finding_history where note like '%4111%'`);
    expect(stored.rows).toEqual([]);
  });

  it('keeps checking an acknowledged finding: it resolves itself when the data agrees', async () => {
    await deliverPayment(t, 'py_flow_2', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_flow_2');
    await post(`/api/findings/${finding?.id}/acknowledge`, API_TOKEN);
    await deliverPayment(t, 'py_flow_2', 71);
    expect(await findingsOf(t, API_TOKEN, 'py_flow_2')).toMatchObject([
      { id: finding?.id, status: 'acknowledged' },
    ]);
    await deliverPayment(t, 'py_flow_2', 70);
    const read = await request(t.app).get(`/api/findings/${finding?.id}`).set(as(API_TOKEN));
    expect(read.body.data.status).toBe('resolved');
    expect(read.body.data.history.at(-1)).toMatchObject({
      actor: 'tally',
      action: 'resolve',
      old_status: 'acknowledged',
      new_status: 'resolved',
    });
  });

  it('takes an accepted finding out of the open list, and opens a new one when expected or actual change', async () => {
    await deliverPayment(t, 'py_flow_3', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_flow_3');
    await post(`/api/findings/${finding?.id}/accept`, API_TOKEN, { note: 'one cent, agreed' });
    const open = await request(t.app)
      .get('/api/findings?status=open&subject_id=py_flow_3')
      .set(as(API_TOKEN));
    expect(open.body.data).toEqual([]);
    // The same discrepancy seen again stays accepted.
    await deliverPayment(t, 'py_flow_3', 71);
    expect(await findingsOf(t, API_TOKEN, 'py_flow_3')).toMatchObject([
      { id: finding?.id, status: 'accepted' },
    ]);
    // A different one is not what was accepted.
    await deliverPayment(t, 'py_flow_3', 72);
    const [newer, older] = await findingsOf(t, API_TOKEN, 'py_flow_3');
    expect(newer).toMatchObject({ status: 'open', expected: 72, actual: 70 });
    expect(newer?.id).not.toBe(finding?.id);
    expect(older).toMatchObject({ id: finding?.id, status: 'resolved', expected: 71 });
    const read = await request(t.app).get(`/api/findings/${finding?.id}`).set(as(API_TOKEN));
    expect(read.body.data.history.at(-1)).toMatchObject({
      actor: 'tally',
      action: 'supersede',
      old_status: 'accepted',
      new_status: 'resolved',
    });
  });
});

describe('refused workflow changes', () => {
  let id: string;
  beforeAll(async () => {
    await deliverPayment(t, 'py_flow_4', 71);
    id = (await findingsOf(t, API_TOKEN, 'py_flow_4'))[0]?.id as string;
  });

  it.each(['acknowledge', 'accept', 'reopen', 'notes'])('a read token gets 403 on %s', async (action) => {
    const response = await post(`/api/findings/${id}/${action}`, READ_TOKEN, { note: 'x' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: { code: 'forbidden', message: 'token auditor is read-only: changes need an admin token' },
    });
  });

  it('a read token gets 403 on running a job', async () => {
    const response = await post('/api/jobs/daily-report', READ_TOKEN);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('forbidden');
  });

  it('a wrong token gets 401', async () => {
    const response = await post(`/api/findings/${id}/acknowledge`, 'not-a-token-0123456789');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: { code: 'not_authenticated', message: 'missing or invalid bearer token' },
    });
  });

  it.each([{}, { note: '' }, { note: '   ' }])('accept without a note is 422 (%j)', async (body) => {
    const response = await post(`/api/findings/${id}/accept`, API_TOKEN, body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      error: { code: 'note_required', message: 'note: required to accept a finding' },
    });
  });

  it('a note that is not text is 422 naming it', async () => {
    const response = await post(`/api/findings/${id}/notes`, API_TOKEN, { note: 42 });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^note: /);
  });

  it.each(['fnd_999999999', 'fnd_0', 'py_flow_4', 'fnd_x'])(
    'an unknown finding id (%s) is 404',
    async (unknown) => {
      for (const response of [
        await request(t.app).get(`/api/findings/${unknown}`).set(as(API_TOKEN)),
        await post(`/api/findings/${unknown}/acknowledge`, API_TOKEN),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          error: { code: 'resource_not_found', message: 'no finding with that id' },
        });
      }
    },
  );

  it('reopening an open finding is 409 naming the statuses it applies to', async () => {
    const response = await post(`/api/findings/${id}/reopen`, API_TOKEN);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: {
        code: 'invalid_transition',
        message: 'cannot reopen a finding that is open (only acknowledged, accepted)',
      },
    });
  });
});

describe('the daily report and the workflow', () => {
  it('keeps accepted findings apart from open ones, and gives the match rate per account and currency', async () => {
    await deliverPayment(t, 'py_report_open', 71, 'acc_report');
    await deliverPayment(t, 'py_report_accepted', 71, 'acc_report');
    await deliverPayment(t, 'py_report_matched', 70, 'acc_report');
    const [accepted] = await findingsOf(t, API_TOKEN, 'py_report_accepted');
    await post(`/api/findings/${accepted?.id}/accept`, API_TOKEN, { note: 'agreed' });
    expect((await post('/api/jobs/daily-report', API_TOKEN, { date: '2026-11-01' })).status).toBe(202);
    await waitForJobs(t, ['daily-report']);
    const reports = await request(t.app).get('/api/reports?kind=daily').set(as(API_TOKEN));
    const report = (
      await request(t.app).get(`/api/reports/${reports.body.data[0].id}.json`).set(as(API_TOKEN))
    ).body;

    const openIds = report.top_findings.map((row: { subject_id: string }) => row.subject_id);
    expect(openIds).toContain('py_report_open');
    expect(openIds).not.toContain('py_report_accepted');
    const acceptedRows = report.accepted_findings.filter(
      (row: { code: string }) => row.code === 'fee_total_mismatch',
    );
    expect(acceptedRows).toContainEqual({
      account_type: 'test',
      currency: 'usd',
      code: 'fee_total_mismatch',
      findings: 1,
      at_stake: 1,
    });
    expect(
      report.match_rates.filter((row: { account_id: string }) => row.account_id === 'acc_report'),
    ).toEqual([
      {
        account_type: 'test',
        account_id: 'acc_report',
        currency: 'usd',
        checked: 3,
        matched: 1,
        match_rate: '33.33',
        unverified: 0,
      },
    ]);
  });

  it('the match rates are the same whether the reconciliations are looked up by key or joined in one pass', async () => {
    const day = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z') };
    const joined = await sumMatchRates(t.pool, day.from, day.to, 'joined');
    expect(joined.find((row) => row.account_id === 'acc_report')?.checked).toBe(3);
    expect(await sumMatchRates(t.pool, day.from, day.to, 'byKey')).toEqual(joined);
    // A day that is a large share of the payments the database holds reads them in one pass.
    await t.pool.query('analyze payment_reconciliations');
    expect(await chooseReconciliationAccess(t.pool, day.from, day.to)).toBe('joined');
  });
});
