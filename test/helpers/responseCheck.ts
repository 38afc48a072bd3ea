import type { RequestHandler } from 'express';
import { z } from 'zod';
import { declaredAnswers } from '../../src/api/openapi/document.ts';
import { errorSchema } from '../../src/api/openapi/responses.ts';
import { declaredRouteOf } from '../../src/api/routes/mountRoutes.ts';
import type { Route } from '../../src/api/routes/route.ts';
import { recordResponseProblem } from './responseProblems.ts';

export type SeenResponse = { status: number; contentType: string; text: string };

// Paths outside these are not the API's (the console, `/`): no route declaration describes them.
const SCOPE = /^\/(api|webhooks|healthz|readyz|metrics)(\/|$)/i;

/** Every request the checked apps answered in this file, with the declaration that answered it (if any). */
export const answered: { method: string; path: string; route: Route | undefined }[] = [];

/**
 * Why a response breaks its route's declaration, or null when it keeps it: its status is declared (by the
 * route or as a refusal of its kind), its media type is one the status declares, and its body parses with
 * that media type's schema. An answer no declared route gave must be a refusal with the error body.
 */
export function responseProblem(
  method: string,
  path: string,
  response: SeenResponse,
  route: Route | undefined,
): string | null {
  if (!SCOPE.test(path)) return null;
  const where = `${method} ${path} → ${response.status}`;
  const media = response.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!route) {
    if (response.status < 400 || response.status >= 500)
      return `${where}: no declared route answered, yet it was not refused`;
    return bodyProblem(where, errorSchema, media, response);
  }
  const answer = declaredAnswers(route)[response.status];
  if (!answer) return `${where}: status not declared for ${route.method.toUpperCase()} ${route.path}`;
  if (!answer.content)
    return media && response.text ? `${where}: declared without a body, got ${media}` : null;
  const schema = answer.content[media];
  if (!schema)
    return `${where}: content type ${media || 'none'} not declared (${Object.keys(answer.content).join(', ')})`;
  // A HEAD answer has no body; a text body (CSV, HTML, a script) is declared as any string.
  if (method === 'HEAD' || !(schema instanceof z.ZodType)) return null;
  return bodyProblem(where, schema, media, response);
}

function bodyProblem(where: string, schema: z.ZodType, media: string, response: SeenResponse): string | null {
  if (media !== 'application/json') return `${where}: the body is ${media || 'untyped'}, not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return `${where}: the body is not JSON`;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return null;
  const [first] = parsed.error.issues;
  return `${where}: the body breaks the declaration at /${first?.path.join('/')}: ${first?.message}`;
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
type WriteHead = (status: number, ...rest: unknown[]) => unknown;
type End = (chunk?: unknown, ...rest: unknown[]) => unknown;

/**
 * The test apps' `checkResponses` hook: keeps what each answer writes and, as it ends, checks it against the
 * declaration of the route that gave it (`declaredRouteOf`), recording a problem for the running test.
 */
export const checkResponses: RequestHandler = (req, res, next) => {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  // The webhook answers through writeHead's headers, which res.getHeader does not see.
  let headedType: string | undefined;
  const writeHead = res.writeHead as unknown as WriteHead;
  (res as unknown as { writeHead: WriteHead }).writeHead = function (this: unknown, status, ...rest) {
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
    const type = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    if (type !== undefined) headedType = String(type);
    return writeHead.call(this, status, ...rest);
  };
  const write = res.write as unknown as Write;
  const end = res.end as unknown as End;
  (res as unknown as { write: Write }).write = function (this: unknown, chunk, ...rest) {
    keep(chunk, rest[0]);
    return write.call(this, chunk, ...rest);
  };
  (res as unknown as { end: End }).end = function (this: unknown, chunk, ...rest) {
    keep(chunk, rest[0]);
    const path = new URL(req.originalUrl, 'http://app').pathname;
    const route = declaredRouteOf(res);
    answered.push({ method: req.method, path, route });
    const seen = {
      status: res.statusCode,
      contentType: String(res.getHeader('content-type') ?? headedType ?? ''),
      text: Buffer.concat(chunks).toString('utf8'),
    };
    const problem = responseProblem(req.method, path, seen, route);
    if (problem) recordResponseProblem(problem);
    return end.call(this, chunk, ...rest);
  };
  next();
};
