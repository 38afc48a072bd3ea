import { parse } from 'node:querystring';
import type { ErrorRequestHandler } from 'express';
import { z } from 'zod';
import { describeIssues } from '../../zodIssues.ts';
import { HttpError, isPathDecodeError } from '../errors.ts';

// Postgres refuses NUL in text and unpaired surrogates in jsonb; other control characters are never part of
// an id, code or date, so they are refused too rather than stored or logged.
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const HTTP_CODE = 'httpCode';

/** Text Postgres can store and compare: 1 to `maxLength` characters, no control characters, well formed. */
export function storableText({ maxLength = 255 }: { maxLength?: number } = {}) {
  return z
    .string({ error: 'must be text' })
    .min(1, 'must not be empty')
    .max(maxLength, `must be at most ${maxLength} characters`)
    .refine((value) => !CONTROL.test(value), 'must not contain control characters')
    .refine((value) => !LONE_SURROGATE.test(value), 'must be valid text');
}

/** Free text a person writes (a note): like `storableText`, but newlines and tabs are fine; trimmed. */
export function freeText({ maxLength }: { maxLength: number }) {
  return z
    .string({ error: 'must be text' })
    .trim()
    .max(maxLength, `must be at most ${maxLength} characters`)
    .refine((value) => !CONTROL.test(value.replace(/[\n\r\t]/g, ' ')), 'must not contain control characters')
    .refine((value) => !LONE_SURROGATE.test(value), 'must be valid text');
}

// A note is free text: newlines and tabs are fine, other control characters and broken text are not.
export const noteBody = z.object({ note: freeText({ maxLength: 2000 }).optional() });

/** A path id such as `py_…` or `evt_…`: text, at most 255 characters unless told. */
export function pathId({ maxLength = 255 }: { maxLength?: number } = {}) {
  return storableText({ maxLength });
}

/** One of a fixed set of words; the message lists them, never the value sent. */
export function oneOf<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

/** `true` or `false`, as a boolean. */
export function booleanWord() {
  return oneOf(['true', 'false']).transform((value) => value === 'true');
}

/** YYYY-MM-DD that exists in the calendar and in Postgres, which has no year 0. */
export function calendarDate() {
  return z.iso
    .date({ error: 'must be a calendar date, YYYY-MM-DD' })
    .refine((value) => !value.startsWith('0000'), 'must be a calendar date, YYYY-MM-DD');
}

/** Decimal digits naming a row id, or null when they are not one: no leading zero, a safe JS integer. */
export function parseRowId(digits: string): number | null {
  if (!/^[1-9]\d{0,15}$/.test(digits)) return null;
  const id = Number(digits);
  // Number.MAX_SAFE_INTEGER is below the bigint maximum, so a safe integer always fits the column.
  return Number.isSafeInteger(id) ? id : null;
}

/** A schema failure that answers with its own error code instead of `invalid_parameter` (e.g. `invalid_cursor`). */
export function customIssue(httpCode: string, message: string) {
  return { code: 'custom' as const, message, params: { [HTTP_CODE]: httpCode } };
}

/**
 * Parses `req.query` with a declared object schema. A repeated (`?a=1&a=2`) or bracketed (`?a[b]=c`)
 * declared parameter, or any value the schema refuses, is 400 `invalid_parameter` "<param>: <problem>";
 * the value itself is never echoed. An empty value counts as absent; undeclared parameters are ignored.
 */
export function parseQuery<Schema extends z.ZodObject>(schema: Schema, query: unknown): z.output<Schema> {
  const given = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    const name = key.replace(/\[.*$/s, '');
    if (!Object.hasOwn(schema.shape, name)) continue;
    if (name !== key || typeof value !== 'string')
      throw new HttpError(400, 'invalid_parameter', `${name}: must be given once, as a plain value`);
    if (value !== '') input[name] = value;
  }
  return parseInput(schema, input);
}

/** Parses `req.params` with a declared object schema; a refused value is 400 naming the parameter. */
export function parseParams<Schema extends z.ZodObject>(schema: Schema, params: unknown): z.output<Schema> {
  return parseInput(schema, params);
}

/** Parses a request body (none: `{}`) with a declared schema; a refused field is 422 naming it. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw new HttpError(422, 'invalid_parameter', describeIssues(parsed.error, 'body', 3));
}

/**
 * Path parameters whose malformed value is answered by the route's own refusal (404 for an id that names
 * nothing) rather than 400 `invalid_parameter`.
 */
const refusals = new WeakMap<z.ZodType, (value: string) => HttpError>();

export function refusedAs<Schema extends z.ZodType>(schema: Schema, refusal: (value: string) => HttpError) {
  refusals.set(schema, refusal);
  return schema;
}

function parseInput<Schema extends z.ZodObject>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const [first] = parsed.error.issues;
  const name = String(first?.path[0] ?? '');
  const refusal = refusals.get(schema.shape[name] as z.ZodType);
  if (refusal) throw refusal(String((input as Record<string, unknown>)[name] ?? ''));
  const httpCode = first?.code === 'custom' ? first.params?.[HTTP_CODE] : undefined;
  throw new HttpError(
    400,
    typeof httpCode === 'string' ? httpCode : 'invalid_parameter',
    describeIssues(parsed.error, 'query', 3),
  );
}

/**
 * Ends a console router whose one path parameter is `name`: express decodes it before any handler runs and
 * throws a URIError on a malformed `%` sequence, which this answers as 400 naming the parameter. The declared
 * routes, with several templates, find the parameter from the path's shape (mountRoutes.ts).
 */
export function undecodablePathParam(name: string): ErrorRequestHandler {
  return (err, _req, _res, next) => {
    next(
      isPathDecodeError(err)
        ? new HttpError(400, 'invalid_parameter', `${name}: must be valid percent-encoded UTF-8`)
        : err,
    );
  };
}

/**
 * The path (`account_id`, `items.0`) of a string or key in a JSON value that Postgres jsonb cannot hold or
 * that carries control characters, or null when every one is clean.
 */
export function findUnstorableText(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, '']];
  const bad = (text: string) => CONTROL.test(text) || LONE_SURROGATE.test(text);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [current, path] = next;
    if (typeof current === 'string' && bad(current)) return path || 'body';
    if (typeof current !== 'object' || current === null) continue;
    for (const [key, child] of Object.entries(current)) {
      const childPath = path ? `${path}.${key}` : key;
      if (bad(key)) return path || 'body';
      pending.push([child, childPath]);
    }
  }
  return null;
}

const decodes = (text: string) => {
  try {
    decodeURIComponent(text.replaceAll('+', ' '));
    return true;
  } catch {
    return false;
  }
};

/**
 * Express's query parser (node:querystring, as its `simple` parser), except that a malformed or non-UTF-8
 * percent sequence is 400 naming the parameter instead of being turned into U+FFFD silently.
 */
export function parseQueryString(query: string): Record<string, unknown> {
  let malformed = false;
  const parsed = parse(query, '&', '=', {
    decodeURIComponent: (text) => {
      if (!decodes(text)) malformed = true;
      return decodeURIComponent(text);
    },
  });
  if (!malformed) return parsed;
  const pair = query.split('&').find((candidate) => !decodes(candidate)) ?? '';
  const name = pair.split('=')[0] ?? '';
  const shown = decodes(name) && !CONTROL.test(decodeURIComponent(name)) ? decodeURIComponent(name) : 'query';
  throw new HttpError(400, 'invalid_parameter', `${shown.slice(0, 64)}: must be valid percent-encoded UTF-8`);
}
