import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/api/openapi/document.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';

// Every GET operation's query parameters, each sent empty (`?name=`). The document's own schema for the
// parameter says whether an empty value is allowed: if it is, the answer is the one without the parameter;
// if not, a 400 naming it. The response check (helpers/responseCheck.ts) holds every answer to its route too.

type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  schema: { format?: string; enum?: string[] };
};

// A valid value for a required parameter, so that sending another one empty is the only fault.
const validValue = (parameter: Parameter) =>
  parameter.schema.enum?.[0] ?? (parameter.schema.format === 'date' ? '2026-11-01' : 'x');

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);

const cases = Object.entries(openApiDocument().paths).flatMap(([path, methods]) => {
  const parameters = ((methods as { get?: { parameters?: Parameter[] } }).get?.parameters ?? []).filter(
    (parameter) => parameter.in === 'query',
  );
  // A path parameter gets a value no row has: the route answers as it does for any unknown id.
  const url = path.replace(/\{\w+\}/g, 'unknown');
  return parameters.map((parameter) => {
    const others = parameters.filter((other) => other.required && other.name !== parameter.name);
    const query = others.map((other) => `${other.name}=${encodeURIComponent(validValue(other))}&`).join('');
    return { url, query, name: parameter.name, emptyAllowed: ajv.validate(parameter.schema, '') };
  });
});

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // A finding and an alert, so that a filter wrongly applied as `= ''` would empty their lists.
  await t.pool.query(
    `insert into findings (code, severity, status, subject_type, subject_id, currency, expected, actual, scope,
                           first_seen_at, last_seen_at, at_stake)
     values ('payout_not_in_bank', 'error', 'open', 'payout', 'po_1', 'usd', '1', '2', 'payout:po_1',
             now(), now(), 100)`,
  );
  await t.pool.query(
    `insert into alerts (dedupe_key, kind, subject_id, account_id, payload, status, created_at)
     values ('empty-query:1', 'finding', 'po_1', 'acc_1', '{"code": "payout_not_in_bank"}', 'sent', now())`,
  );
});
afterAll(() => t.close());

const get = (url: string) => request(t.app).get(url).auth(API_TOKEN, { type: 'bearer' });

describe('an empty query parameter', () => {
  it('is declared on the list routes, whose lists are not empty', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(cases).toContainEqual(expect.objectContaining({ url: '/api/findings', name: 'code' }));
    expect((await get('/api/findings').expect(200)).body.data).toHaveLength(1);
    expect((await get('/api/alerts').expect(200)).body.data).toHaveLength(1);
  });

  it.each(cases)(
    'GET $url?$name= is answered as the document says',
    async ({ url, query, name, emptyAllowed }) => {
      const response = await get(`${url}?${query}${name}=`);
      if (emptyAllowed) {
        const without = await get(`${url}?${query}`);
        expect({ status: response.status, body: response.body }).toEqual({
          status: without.status,
          body: without.body,
        });
      } else {
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_parameter');
        expect(response.body.error.message).toMatch(new RegExp(`^${name}: `));
      }
    },
  );
});
