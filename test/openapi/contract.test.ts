import { Validator } from '@seriousme/openapi-schema-validator';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.ts';
import { openApiDocument } from '../../src/api/openapi/document.ts';
import { routes } from '../../src/api/routes/index.ts';
import { FINDING_ORDERS } from '../../src/findings/readQueries.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { answered, checkResponses, responseProblem } from '../helpers/responseCheck.ts';
import { takeResponseProblems } from '../helpers/responseProblems.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const documented = Object.entries(openApiDocument().paths).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
);
type Parameter = { name: string; schema: unknown };
const parametersOf = (path: string, method: string): Parameter[] =>
  (openApiDocument().paths[path]?.[method] as { parameters?: Parameter[] } | undefined)?.parameters ?? [];
// A value for each path parameter that the route takes as its own (a well-formed period, a finding id).
const SAMPLES: Record<string, string> = {
  period: '2026-01',
  id: 'fnd_1',
  action: 'notes',
  name: 'x',
  file: 'x',
};
const sampleUrl = (template: string) =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLES[name] ?? 'x');

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(openApiDocument() as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(openApiDocument().openapi).toBe('3.1.0');
  });

  it('has one operation per declared route', () => {
    const declared = routes.map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(documented.toSorted()).toEqual(declared.toSorted());
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared.length).toBeGreaterThanOrEqual(20);
  });

  it.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    'mounts %s: a request to it is answered by its own declaration',
    async (_name, route) => {
      const url = sampleUrl(route.path);
      answered.length = 0;
      await request(t.app)
        [route.method](url)
        .set('content-type', 'application/json')
        .send(route.method === 'post' ? '{}' : undefined);
      expect(answered.map((answer) => answer.route)).toEqual([route]);
    },
  );

  it('takes its parameters from the schemas the routes parse with', () => {
    const sort = parametersOf('/api/findings', 'get').find((parameter) => parameter.name === 'sort');
    expect(sort?.schema).toEqual({
      anyOf: [
        { type: 'string', enum: [...FINDING_ORDERS] },
        { const: '', description: 'Empty: the same as leaving the parameter out.' },
      ],
    });
  });

  it("declares each scheduled job its own operation, whose body takes that job's fields and no other", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    type Body = { properties?: Record<string, unknown>; additionalProperties?: unknown };
    const bodyOf = (name: string) =>
      (paths[`/api/jobs/${name}`]?.post as { requestBody: { content: Record<string, { schema: Body }> } })
        ?.requestBody.content['application/json']?.schema;
    const scheduled = jobs.filter((job) => job.scheduled).map((job) => job.name);
    expect(scheduled.length).toBeGreaterThanOrEqual(10);
    for (const name of scheduled) expect(bodyOf(name)?.additionalProperties, name).toBe(false);
    expect(Object.keys(bodyOf('retention-purge')?.properties ?? {})).toEqual([]);
    expect(Object.keys(bodyOf('daily-report')?.properties ?? {})).toEqual(['date']);
    expect(Object.keys(bodyOf('payout-sync')?.properties ?? {}).toSorted()).toEqual([
      'account_id',
      'payout_id',
    ]);
  });
});

describe('the response check every API test runs', () => {
  const json = 'application/json; charset=utf-8';
  const route = (path: string) => routes.find((candidate) => candidate.path === path);

  it('refuses a body, a status or a content type the route does not declare', () => {
    const status = {
      status: 200,
      contentType: json,
      text: '{"id":null,"type":"status","data":{},"page_info":null}',
    };
    expect(responseProblem('GET', '/api/status', status, route('/api/status'))).toMatch(
      /breaks the declaration/,
    );
    const teapot = { status: 418, contentType: json, text: '{"error":{"code":"x","message":"y"}}' };
    expect(responseProblem('GET', '/api/status', teapot, route('/api/status'))).toMatch(
      /status not declared/,
    );
    const html = { status: 200, contentType: 'text/html', text: '<p>' };
    expect(responseProblem('GET', '/healthz', html, route('/healthz'))).toMatch(
      /content type text\/html not declared/,
    );
    const finding = {
      status: 200,
      contentType: json,
      text: JSON.stringify({ id: 'fnd_1', type: 'finding', data: { code: 'no_such_code' }, page_info: null }),
    };
    expect(responseProblem('GET', '/api/findings/fnd_1', finding, route('/api/findings/{id}'))).toMatch(
      /breaks the declaration at \/data/,
    );
  });

  it('fails the test whose app answers from a route mounted beside the declarations', async () => {
    // The hook as the test apps install it, before a route mounted by hand rather than declared.
    const app = express();
    app.use(checkResponses);
    app.get('/api/secret', (_req, res) => res.json({ secret: true }));
    await request(app).get('/api/secret').expect(200);
    expect(takeResponseProblems()).toEqual([
      'GET /api/secret → 200: no declared route answered, yet it was not refused',
    ]);
  });

  it('refuses an answer no declared route gave unless it is a refusal', () => {
    const found = { status: 200, contentType: json, text: '{"status":"ok"}' };
    expect(responseProblem('GET', '/api/secret', found, undefined)).toMatch(/no declared route answered/);
    const refused = {
      status: 404,
      contentType: json,
      text: '{"error":{"code":"resource_not_found","message":"no"}}',
    };
    expect(responseProblem('GET', '/api/secret', refused, undefined)).toBeNull();
    expect(responseProblem('GET', '/console/anything', found, undefined)).toBeNull();
  });
});

describe('answers the document describes from stored rows', () => {
  it('lists alerts in every status, those folded into a digest included', async () => {
    await t.pool.query(
      `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, status, created_at, finding_id, digest_id)
       values ('contract:1', 'finding', 'py_contract_1', 'acc_1', '{"code": "ach_return"}', 'digested', now(), 7, 3),
              ('contract:2', 'digest', 'digest', null, '{}', 'sent', now(), null, null)`,
    );
    const response = await request(t.app).get('/api/alerts').auth(API_TOKEN, { type: 'bearer' }).expect(200);
    expect(response.body.data.map((alert: { status: string }) => alert.status)).toEqual(['sent', 'digested']);
    expect(response.body.data[1]).toMatchObject({ finding_id: 7, digest_id: 3, subject_id: 'py_contract_1' });
  });
});

describe('GET /api/openapi.json and /api/docs', () => {
  it('serves the document without a token', async () => {
    const response = await request(t.app).get('/api/openapi.json').expect(200);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("serves the viewer with its own content policy, and the console keeps the console's", async () => {
    const page = await request(t.app)
      .get('/api/docs')
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(page.text).toContain('<script src="/api/docs/viewer.js"></script>');
    const policy = page.headers['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    const consolePage = await request(t.app).get('/console/sign-in');
    expect(consolePage.headers['content-security-policy']).not.toContain('script-src');
    const api = await request(t.app).get('/healthz');
    expect(api.headers['content-security-policy']).toBeUndefined();
  });

  it("serves the viewer's own files and nothing else of its package", async () => {
    await request(t.app)
      .get('/api/docs/viewer.js')
      .expect(200)
      .expect('content-type', /javascript/);
    await request(t.app).get('/api/docs/swagger-ui-bundle.js').expect(200);
    await request(t.app)
      .get('/api/docs/swagger-ui.css')
      .expect(200)
      .expect('content-type', /text\/css/);
    await request(t.app).get('/api/docs/package.json').expect(404);
    await request(t.app).get('/api/docs/..%2Fpackage.json').expect(404);
  });
});
