import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MINUTES } from '../../src/api/console/signInLimit.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { csrfOf, textOf } from './signIn.ts';

const sessionCookie = (response: request.Response) =>
  ((response.headers['set-cookie'] as unknown as string[] | undefined) ?? []).find((line) =>
    line.startsWith('tally_session='),
  );

describe('the session cookie outside development', () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp({ env: { NODE_ENV: 'production' } });
  });
  afterAll(() => production.close());

  it('is Secure over HTTPS, and signs in', async () => {
    const form = await request(production.app).get('/console/sign-in').set('x-forwarded-proto', 'https');
    expect(form.status).toBe(200);
    expect(sessionCookie(form)).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
    const signedIn = await request(production.app)
      .post('/console/sign-in')
      .set('x-forwarded-proto', 'https')
      .set('cookie', (sessionCookie(form) as string).split(';')[0] as string)
      .type('form')
      .send({ token: API_TOKEN, _csrf: csrfOf(form.text) });
    expect(signedIn.status).toBe(303);
    expect(sessionCookie(signedIn)).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
  });

  it('is never set without Secure, whatever the proxy says: plain HTTP gets no cookie and is told why', async () => {
    for (const proto of ['http', undefined, 'http, https']) {
      const attempt = request(production.app).get('/console/sign-in');
      const form = await (proto ? attempt.set('x-forwarded-proto', proto) : attempt);
      expect(form.status, String(proto)).toBe(403);
      expect(sessionCookie(form), String(proto)).toBeUndefined();
      expect(textOf(form.text)).toContain('The console signs in over HTTPS only');
    }
  });
});

describe('sign-in attempts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it(`are limited to ${SIGN_IN_ATTEMPTS} failures per address: the next is 429 with Retry-After, even with a good token`, async () => {
    const agent = request.agent(t.app);
    const form = await agent.get('/console/sign-in');
    const csrf = csrfOf(form.text);
    for (let attempt = 1; attempt <= SIGN_IN_ATTEMPTS; attempt++) {
      const wrong = await agent
        .post('/console/sign-in')
        .type('form')
        .send({ token: `wrong-token-${attempt}-0123456789`, _csrf: csrf });
      expect(wrong.status, `attempt ${attempt}`).toBe(401);
    }
    const limited = await agent.post('/console/sign-in').type('form').send({ token: API_TOKEN, _csrf: csrf });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_WINDOW_MINUTES * 60);
    expect(textOf(limited.text)).toContain(`try again in ${retryAfter} seconds`);
    expect(t.logLines.join('')).toContain('console sign-in limited');
    // The form itself is still shown: only sign-in attempts are limited.
    expect((await agent.get('/console/sign-in')).status).toBe(200);
  });

  it('do not count when they succeed', async () => {
    const other = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      for (let attempt = 1; attempt <= SIGN_IN_ATTEMPTS + 2; attempt++) {
        const agent = request.agent(other.app);
        const form = await agent.get('/console/sign-in');
        const signedIn = await agent
          .post('/console/sign-in')
          .type('form')
          .send({ token: API_TOKEN, _csrf: csrfOf(form.text) });
        expect(signedIn.status, `sign-in ${attempt}`).toBe(303);
      }
    } finally {
      await other.close();
    }
  });
});
