import { parse } from 'node-html-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverPayment, findingsOf, READ_TOKEN, TOKENS_ENV } from '../findings/workflow/helpers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { waitForJobs } from '../helpers/fixtures.ts';
import { until, waitFor } from '../helpers/waitFor.ts';
import { csrfOf, page, signIn, textOf } from './signIn.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: TOKENS_ENV, worker: true });
});
afterAll(() => t.close());

describe('signing in to the console', () => {
  it('links / to the console, and shows the sign-in page without a session', async () => {
    expect((await request(t.app).get('/')).headers.location).toBe('/console');
    const response = await request(t.app).get('/console/findings');
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/console/sign-in');
  });

  it('says the console is off, and opens nothing, when no token is configured', async () => {
    const closed = await startTestApp({ env: { API_TOKEN: undefined } });
    try {
      const response = await request(closed.app).get('/console/findings');
      expect(response.status).toBe(404);
      expect(textOf(response.text)).toContain('The console and the API are off');
      expect(
        (await request(closed.app).post('/console/sign-in').type('form').send({ token: 'x' })).status,
      ).toBe(404);
    } finally {
      await closed.close();
    }
  });

  it('sets an HttpOnly, SameSite=Strict session cookie with an expiry, Secure behind HTTPS', async () => {
    // A Secure cookie is not sent back over the test's plain HTTP by a cookie jar, so it is carried by hand.
    const form = await request(t.app).get('/console/sign-in').set('x-forwarded-proto', 'https');
    const formCookie = (form.headers['set-cookie'] as unknown as string[])[0]?.split(';')[0] as string;
    expect(form.headers['set-cookie']?.[0]).toMatch(/; Secure; SameSite=Strict$/);
    const response = await request(t.app)
      .post('/console/sign-in')
      .set('x-forwarded-proto', 'https')
      .set('cookie', formCookie)
      .type('form')
      .send({ token: API_TOKEN, _csrf: csrfOf(form.text) });
    expect(response.status).toBe(303);
    const cookie = (response.headers['set-cookie'] as unknown as string[]).find((line) =>
      line.startsWith('tally_session='),
    );
    expect(cookie).toMatch(/; Path=\/console; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/);
    // The form's session (its CSRF token only) lasts 15 minutes; a signed-in one 8 hours.
    const expiresIn = (line: string) => Date.parse(line.match(/Expires=([^;]+)/)?.[1] ?? '') - Date.now();
    expect(expiresIn(form.headers['set-cookie']?.[0] as string)).toBeLessThanOrEqual(15 * 60_000);
    expect(expiresIn(cookie as string)).toBeGreaterThan(7.9 * 3600_000);
    expect(cookie).not.toContain(API_TOKEN);
  });

  it('keeps neither the token nor its plain hash in the session store', async () => {
    const { createHash } = await import('node:crypto');
    await signIn(t, API_TOKEN);
    const { rows } = await t.pool.query(`select sess::text as sess from console_sessions`);
    const stored = rows.map((row) => row.sess).join('\n');
    expect(stored).toContain('fingerprint');
    for (const form of ['hex', 'base64url', 'base64'] as const)
      expect(stored).not.toContain(createHash('sha256').update(API_TOKEN).digest(form));
    expect(stored).not.toContain(API_TOKEN);
  });

  it('refuses a wrong token with 401 and a sign-in without the CSRF token with 403', async () => {
    const agent = request.agent(t.app);
    const form = await agent.get('/console/sign-in');
    const wrong = await agent
      .post('/console/sign-in')
      .type('form')
      .send({ token: 'nope-0123456789abcdef', _csrf: csrfOf(form.text) });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.text)).toContain('That token is not valid.');
    const noCsrf = await agent.post('/console/sign-in').type('form').send({ token: API_TOKEN });
    expect(noCsrf.status).toBe(403);
    expect(textOf(noCsrf.text)).toContain('missing or invalid form token');
  });

  it('sends security headers: CSP without scripts, no framing, no referrer', async () => {
    const response = await request(t.app).get('/console/sign-in');
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('signs out: the session no longer opens a page', async () => {
    const agent = await signIn(t, API_TOKEN);
    const overview = await page(agent, '/console');
    expect(overview.response.status).toBe(200);
    const out = await agent.post('/console/sign-out').type('form').send({ _csrf: overview.csrf() });
    expect(out.status).toBe(303);
    expect((await agent.get('/console')).headers.location).toBe('/console/sign-in');
  });
});

describe('the finding workflow in the console', () => {
  it('acknowledges and accepts with a note; a change without the CSRF token is 403; a read token changes nothing', async () => {
    await deliverPayment(t, 'py_console_1', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_console_1');
    const id = finding?.id as string;
    const admin = await signIn(t, API_TOKEN);
    const before = await page(admin, `/console/findings/${id}`);
    expect(textOf(before.html)).toContain('fee_total_mismatch');

    const noCsrf = await admin.post(`/console/findings/${id}/acknowledge`).type('form').send({});
    expect(noCsrf.status).toBe(403);
    const acknowledged = await admin
      .post(`/console/findings/${id}/acknowledge`)
      .type('form')
      .send({ _csrf: before.csrf() });
    expect(acknowledged.status).toBe(303);
    const noNote = await admin
      .post(`/console/findings/${id}/accept`)
      .type('form')
      .send({ _csrf: before.csrf(), note: '' });
    expect(noNote.status).toBe(422);
    expect(textOf(noNote.text)).toContain('note: required to accept a finding');
    await admin
      .post(`/console/findings/${id}/accept`)
      .type('form')
      .send({ _csrf: before.csrf(), note: 'agreed with finance' });
    const after = textOf((await page(admin, `/console/findings/${id}`)).html);
    expect(after).toMatch(/admin acknowledge: open → acknowledged/);
    expect(after).toMatch(/admin accept: acknowledged → accepted\s*agreed with finance/);

    const reader = await signIn(t, READ_TOKEN);
    const readPage = await page(reader, `/console/findings/${id}`);
    expect(parse(readPage.html).querySelector('form[action$="/notes"]')).toBeNull();
    const refused = await reader
      .post(`/console/findings/${id}/reopen`)
      .type('form')
      .send({ _csrf: readPage.csrf() });
    expect(refused.status).toBe(403);
    expect(textOf(refused.text)).toContain('token auditor is read-only');
  });

  it('acknowledges in bulk what the filter selects', async () => {
    await deliverPayment(t, 'py_bulk_1', 71, 'acc_bulk');
    await deliverPayment(t, 'py_bulk_2', 71, 'acc_bulk');
    const admin = await signIn(t, API_TOKEN);
    const list = await page(admin, '/console/findings?account_id=acc_bulk&status=open');
    expect(textOf(list.html)).toContain('py_bulk_2');
    const response = await admin
      .post('/console/findings/bulk')
      .type('form')
      .send({ _csrf: list.csrf(), account_id: 'acc_bulk', status: 'open', action: 'acknowledge' });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/console/findings?status=open&account_id=acc_bulk&changed=2');
    const statuses = await Promise.all(['py_bulk_1', 'py_bulk_2'].map((id) => findingsOf(t, API_TOKEN, id)));
    expect(statuses.map(([f]) => f?.status)).toEqual(['acknowledged', 'acknowledged']);
  });
});

describe('reading pages', () => {
  it('shows every page to a read token, the payment timeline and the report inline', async () => {
    await deliverPayment(t, 'py_pages_1', 71, 'acc_pages');
    await deliverPayment(t, 'py_pages_1', 70, 'acc_pages');
    const job = await request(t.app)
      .post('/api/jobs/daily-report')
      .set({ Authorization: `Bearer ${API_TOKEN}` })
      .send({ date: '2026-11-01' });
    expect(job.status).toBe(202);
    await waitForJobs(t, ['daily-report']);
    const reader = await signIn(t, READ_TOKEN);

    const paymentHtml = (await page(reader, '/console/payments/py_pages_1')).html;
    const timeline = parse(paymentHtml).querySelectorAll('ol.timeline > li summary');
    expect(timeline.map((entry) => entry.querySelector('strong')?.text)).toEqual([
      'payment.succeeded',
      'payment.succeeded',
    ]);
    const payment = textOf(paymentHtml);
    expect(payment).toContain('pyfee_py_pages_1');
    expect(payment).toMatch(/fee_total_mismatch\s*error\s*resolved/);

    // The overview shows what waits for reconciliation and which jobs failed for good.
    await t.pool.query(
      `insert into payment_reconciliation_states (payment_id, projected_version, unreconciled_since)
       values ('py_waiting_reconciliation', 1, now() - interval '90 seconds')`,
    );
    const overviewText = textOf((await page(reader, '/console')).html);
    await t.pool.query(
      `delete from payment_reconciliation_states where payment_id = 'py_waiting_reconciliation'`,
    );
    expect(overviewText).toMatch(/Unreconciled payments\s*1 \(oldest 9\d s\)/);
    expect(overviewText).toMatch(/Failed jobs\s*none/);

    for (const path of [
      '/console',
      '/console/alerts',
      '/console/ach-returns',
      '/console/disputes',
      '/console/deliveries',
    ]) {
      const { response } = await page(reader, path);
      expect(response.status, path).toBe(200);
    }
    const reports = await page(reader, '/console/reports');
    const link = parse(reports.html).querySelector('main table a')?.getAttribute('href') as string;
    const report = await page(reader, link);
    expect(textOf(report.html)).toContain('Daily reconciliation report, 2026-11-01');
    expect((await reader.get(`${link}.csv`)).headers['content-type']).toBe('text/csv; charset=utf-8');
    expect((await page(reader, '/console/payments/py_none')).response.status).toBe(404);
    const unknown = await page(reader, '/console/no-such-page');
    expect(unknown.response.status).toBe(404);
    expect(textOf(unknown.html)).toContain('No such page.');
    expect((await page(reader, '/console/findings?status=bogus')).response.status).toBe(400);
  });
});

describe('re-processing a delivery from the console', () => {
  it('hands a delivery that used up its attempts back to the worker (admin only)', async () => {
    const { paymentEvent } = await import('../helpers/deliveries.ts');
    const { deliver } = await import('../helpers/fixtures.ts');
    const bad = paymentEvent({
      data: { id: 'py_console_bad', amount: 'none', currency: 'usd', status: 'succeeded' },
    });
    await deliver(t.app, [JSON.stringify(bad)]);
    const stored = async () =>
      (
        await t.pool.query(
          `select id, status, attempts, retry_at is not null as retrying from events where event_id = $1`,
          [bad.id],
        )
      ).rows[0];
    await waitFor('the bad delivery to fail', async () => {
      const row = await stored();
      until(row.status === 'failed', `status ${row.status}`);
    });
    // As if the worker had tried five times: it is no longer claimed by itself.
    await t.pool.query(`update events set attempts = 5, retry_at = null where event_id = $1`, [bad.id]);
    const { id } = await stored();

    const reader = await signIn(t, READ_TOKEN);
    const readPage = await page(reader, `/console/deliveries/${id}`);
    const refused = await reader
      .post(`/console/deliveries/${id}/reprocess`)
      .type('form')
      .send({ _csrf: readPage.csrf() });
    expect(refused.status).toBe(403);

    const admin = await signIn(t, API_TOKEN);
    const adminPage = await page(admin, `/console/deliveries/${id}`);
    const response = await admin
      .post(`/console/deliveries/${id}/reprocess`)
      .type('form')
      .send({ _csrf: adminPage.csrf() });
    expect(response.status).toBe(303);
    // The worker claims it again and it fails again, on its first attempt of a new round.
    const row = await waitFor('the reprocessed delivery to fail on its first attempt', async () => {
      const current = await stored();
      until(current.status === 'failed' && current.attempts === 1, JSON.stringify(current));
      return current;
    });
    expect(row).toEqual({ id, status: 'failed', attempts: 1, retrying: true });
  });
});
