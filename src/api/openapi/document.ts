import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { routes } from '../routes/index.ts';
import { keyPageQuery } from '../routes/keyPagination.ts';
import { pageQuery } from '../routes/pagination.ts';
import type { Answer, Route } from '../routes/route.ts';
import { components, errorSchema } from './responses.ts';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

const COMPONENTS = '#/components/schemas/';
const error = (description: string): Answer => ({
  description,
  content: { 'application/json': errorSchema },
});

/** A zod schema as OpenAPI 3.1's JSON Schema: a `$ref` for a named component, inlined otherwise. */
function jsonSchema(schema: z.ZodType | JsonSchema, io: Io): JsonSchema {
  if (!(schema instanceof z.ZodType)) return schema;
  const named = components.get(schema)?.id;
  if (named) return { $ref: `${COMPONENTS}${named}` };
  const {
    $schema: _dialect,
    $defs: _defs,
    ...converted
  } = z.toJSONSchema(schema, {
    io,
    metadata: components,
    unrepresentable: 'any',
  }) as JsonSchema;
  // Named schemas inside are components already: point at them rather than at a local copy.
  return JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', `"${COMPONENTS}`));
}

function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, { io: 'output', uri: (id) => `${COMPONENTS}${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}

const EMPTY_QUERY_VALUE = { const: '', description: 'Empty: the same as leaving the parameter out.' };

/**
 * `in: query|path|header` parameters from an object schema's shape, each with its own JSON Schema. An empty
 * query value counts as absent (`parseQuery`), so an optional query parameter's schema also allows `''`.
 */
function parameters(place: 'query' | 'path' | 'header', schema: z.ZodObject | undefined) {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const required = place === 'path' || (object.required ?? []).includes(name);
    const emptyRefused = !schema.shape[name]?.safeParse('').success;
    return {
      name,
      in: place,
      required,
      schema:
        place === 'query' && !required && emptyRefused ? { anyOf: [property, EMPTY_QUERY_VALUE] } : property,
    };
  });
}

/** The query parameters of a route: its own, then its page's. */
function queryOf(route: Route): z.ZodObject | undefined {
  const paging = { rows: pageQuery, keys: keyPageQuery, none: undefined }[route.paging ?? 'none'];
  if (!paging) return route.query;
  return z.object({ ...route.query?.shape, ...paging.shape });
}

/** The refusals every route of its kind can answer, beside the route's own answers. */
function commonAnswers(operation: Route): Record<number, Answer> {
  const answers: Record<number, Answer> = {};
  if (operation.query || operation.paging || operation.params)
    answers[400] = error(
      'A parameter is malformed: the message names it (`invalid_parameter`, `invalid_cursor`).',
    );
  if (operation.body && operation.path !== '/webhooks') {
    answers[400] = error(
      'A parameter is malformed, or the body is not valid or not completely received (`invalid_parameter`, `invalid_json`, `request_aborted`).',
    );
    answers[413] = error('The body is too large.');
    answers[415] = error('Unsupported content encoding or charset.');
  }
  if (operation.auth === 'read' || operation.auth === 'admin') {
    answers[401] = error('Missing or unknown bearer token (`not_authenticated`).');
    answers[404] = error('The API is disabled: no token is configured (`api_disabled`).');
  }
  if (operation.auth === 'metrics') {
    answers[401] = error('Missing or unknown bearer token (`not_authenticated`).');
    answers[404] = error(
      'No token is configured (`metrics_disabled`), or `METRICS_PORT` is set and serves this path instead (`resource_not_found`).',
    );
  }
  if (operation.auth === 'read')
    answers[403] = error('A metrics token reads `GET /metrics` only (`forbidden`).');
  if (operation.auth === 'admin')
    answers[403] = error('A read or metrics token cannot change anything (`forbidden`).');
  answers[500] = error('Unexpected failure; details are in the log, never in the answer.');
  return answers;
}

/** Every answer a route can give: its own, and those of its kind, as the document states them. */
export function declaredAnswers(operation: Route): Record<number, Answer> {
  const all = { ...commonAnswers(operation) };
  for (const [status, answer] of Object.entries(operation.answers)) {
    const common = all[Number(status)];
    // The route's own answer and the common one share the status and the error body: both are said.
    all[Number(status)] = common
      ? { ...answer, description: `${answer.description} ${common.description}` }
      : answer;
  }
  return all;
}

function responses(operation: Route) {
  const all = declaredAnswers(operation);
  return Object.fromEntries(
    Object.entries(all).map(([status, answer]) => [
      status,
      {
        description: answer.description,
        ...(answer.content && {
          content: Object.fromEntries(
            Object.entries(answer.content).map(([type, schema]) => [
              type,
              { schema: jsonSchema(schema, 'output') },
            ]),
          ),
        }),
      },
    ]),
  );
}

function operationObject(operation: Route) {
  const body = operation.body;
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description && { description: operation.description }),
    operationId: `${operation.method}${operation.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string = '') => c.toUpperCase())}`,
    security: operation.auth === 'none' ? [] : [{ apiToken: [] }],
    parameters: [
      ...parameters('path', operation.params),
      ...parameters('query', queryOf(operation)),
      ...parameters('header', operation.headers),
    ],
    ...(body && {
      requestBody: {
        required: body.required,
        content: Object.fromEntries(
          Object.entries(body.content).map(([type, schema]) => [
            type,
            { schema: jsonSchema(schema, 'input') },
          ]),
        ),
      },
    }),
    responses: responses(operation),
  };
}

function buildDocument(operations: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: operationObject(operation) };
  }
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../package.json'), 'utf8'));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tally',
      version: pkg.version as string,
      description:
        'Signed payment webhooks in, reconciled findings out. `/api/*` needs `Authorization: Bearer <token>`; ' +
        'answers use the provider’s envelope `{id, type, data, page_info}` and its cursor pagination; every ' +
        'refusal is `{"error": {"code", "message"}}`.',
    },
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        apiToken: { type: 'http', scheme: 'bearer', description: 'API_TOKEN or one of API_TOKENS.' },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildDocument>;

let built: OpenApiDocument | null = null;

/** The OpenAPI 3.1 document of `/api`, `/webhooks` and the health checks, built once from their declarations. */
export function openApiDocument(): OpenApiDocument {
  built ??= buildDocument(routes);
  return built;
}
