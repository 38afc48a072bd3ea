import { z } from 'zod';
import { pageQuery } from '../routes/pagination.ts';
import * as schemas from './responses.ts';

/** One answer: a status's description and, per media type, the body's schema (none: an empty body). */
export type Answer = { description: string; content?: Record<string, z.ZodType | Record<string, unknown>> };

/** One route as the document states it; `path` is OpenAPI's template, `{name}` for a path parameter. */
export type Operation = {
  method: 'get' | 'post';
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** `read`: a read or admin token; `admin`: an admin token; `metrics`: a token of any role; `none`: no token. */
  auth: 'read' | 'admin' | 'metrics' | 'none';
  query?: z.ZodObject;
  /** Path parameters: the route's own schema, or a pattern for ids that are parsed by hand. */
  params?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { required: boolean; content: Record<string, z.ZodType | Record<string, unknown>> };
  answers: Record<number, Answer>;
};

export const json = (schema: z.ZodType) => ({ 'application/json': schema });
export const text = { type: 'string' } as const;
export const ok = (description: string, schema: z.ZodType): Record<number, Answer> => ({
  200: { description, content: json(schema) },
});
export const listQuery = (filters: z.ZodObject, paging: z.ZodObject = pageQuery) =>
  z.object({ ...filters.shape, ...paging.shape });
export const notFound = (what: string): Record<number, Answer> => ({
  404: { description: `No ${what} with that id.`, content: json(schemas.errorSchema) },
});

/** A list route: its filters and the cursor parameters, answered with a page of `item`. */
export function list(
  path: string,
  tag: string,
  summary: string,
  filters: z.ZodObject,
  id: string,
  item: z.ZodType,
) {
  return {
    method: 'get',
    path,
    tag,
    auth: 'read',
    summary,
    query: listQuery(filters),
    answers: ok(`A page.`, schemas.page(id, item, summary)),
  } satisfies Operation;
}
