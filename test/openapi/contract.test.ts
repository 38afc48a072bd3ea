import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.ts';
import { openApiDocument } from '../../src/api/openapi/document.ts';
import { FINDING_ORDERS } from '../../src/findings/queries.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { contractProblem, describedRoute } from '../helpers/contract.ts';
import { routerRoutes } from '../helpers/routes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

// Pages for a person's browser, not the API: the console, the redirect to it and its icon.
const NOT_API = (route: string) =>
  route === 'GET /' || route === 'GET /favicon.ico' || / \/console(\/|$)/.test(route);
const documented = Object.entries(openApiDocument().paths).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
);
type Parameter = { name: string; schema: unknown };
const parametersOf = (path: string, method: string): Parameter[] =>
  (openApiDocument().paths[path]?.[method] as { parameters?: Parameter[] } | undefined)?.parameters ?? [];
const routes = () => routerRoutes(t.app);

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(openApiDocument() as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(openApiDocument().openapi).toBe('3.1.0');
  });

  it('describes every route of the API, the webhooks and the health checks that the router has', () => {
    const api = routes().filter((route) => !NOT_API(route));
    const undescribed = api.filter((route) => {
      const [method = '', path = ''] = route.split(' ');
      const operation = describedRoute(path.replace(/:(\w+)/g, '$1'))?.methods[method.toLowerCase()];
      return !operation;
    });
    expect(undescribed).toEqual([]);
    expect(api.length).toBeGreaterThanOrEqual(20);
  });

  it('describes no route the router lacks', () => {
    const patterns = routes().map((route) => {
      const [method = '', path = ''] = route.split(' ');
      return { method, pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/:\w+/g, '[^/]+')}$`) };
    });
    const missing = documented.filter((operation) => {
      const [method = '', path = ''] = operation.split(' ');
      const sample = path.replace(/\{(\w+)\}/g, '$1');
      return !patterns.some((route) => route.method === method && route.pattern.test(sample));
    });
    expect(missing).toEqual([]);
  });

  it('takes its parameters from the schemas the routes parse with', () => {
    const sort = parametersOf('/api/findings', 'get').find((parameter) => parameter.name === 'sort');
    expect(sort?.schema).toEqual({
      anyOf: [
        { type: 'string', enum: [...FINDING_ORDERS] },
        { const: '', description: 'Empty: the same as leaving the parameter out.' },
      ],
    });
    const names = parametersOf('/api/jobs/{name}', 'post').find(
      (parameter) => parameter.name === 'name',
    )?.schema;
    const scheduled = jobs.filter((job) => job.scheduled).map((job) => job.name);
    expect((names as { enum: string[] }).enum.toSorted()).toEqual(scheduled.toSorted());
  });
});

describe('the contract check every API test runs', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };

  it('refuses a body, a status or a content type the document does not declare', () => {
    const status = {
      status: 200,
      headers: json,
      body: { id: null, type: 'status', data: {}, page_info: null },
    };
    expect(contractProblem('GET', '/api/status', status)).toMatch(/body breaks the document/);
    const teapot = { status: 418, headers: json, body: { error: { code: 'x', message: 'y' } } };
    expect(contractProblem('GET', '/api/status', teapot)).toMatch(/status not declared/);
    const html = { status: 200, headers: { 'content-type': 'text/html' }, body: {}, text: '<p>' };
    expect(contractProblem('GET', '/healthz', html)).toMatch(/content type text\/html not declared/);
  });

  it('refuses an answer from a route the document does not describe unless it is a refusal', () => {
    const found = { status: 200, headers: json, body: { status: 'ok' } };
    expect(contractProblem('GET', '/api/secret', found)).toMatch(/describes no such route/);
    const refused = {
      status: 404,
      headers: json,
      body: { error: { code: 'resource_not_found', message: 'no' } },
    };
    expect(contractProblem('GET', '/api/secret', refused)).toBeNull();
    expect(contractProblem('GET', '/console/anything', found)).toBeNull();
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
