import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { WebhookHandler } from '../../ingest/webhookHandler.ts';
import type { AppDeps } from '../deps.ts';
import { errorSchema } from '../openapi/responses.ts';
import type { ApiTokens } from '../tokens.ts';

type JsonSchema = Record<string, unknown>;

/** One answer: a status's description and, per media type, the body's schema (none: an empty body). */
export type Answer = { description: string; content?: Record<string, z.ZodType | JsonSchema> };

/** `read`: a read or admin token; `admin`: an admin token; `metrics`: a token of any role; `none`: no token. */
export type Role = 'read' | 'admin' | 'metrics' | 'none';

/** `rows`: cursors name a row id (`pagination.ts`); `keys`: they name a provider id (`keyPagination.ts`). */
export type Paging = 'rows' | 'keys';
type PageOf<P> = P extends 'keys'
  ? { limit: number; afterId: string | null; beforeId: string | null }
  : { limit: number; afterId: number | null; beforeId: number | null };
type Parsed<Schema> = Schema extends z.ZodObject ? z.output<Schema> : Record<string, never>;

/** What the runner parsed before the handler runs. */
export type RouteInput<Params, Query, P, Body = undefined> = {
  params: Parsed<Params>;
  query: Parsed<Query>;
  page: PageOf<P>;
  body: Body extends z.ZodType ? z.output<Body> : undefined;
};

/** What routes are built from: the app's deps, its tokens and the webhook handler it was given. */
export type RouteDeps = AppDeps & {
  tokens: ApiTokens;
  handleWebhook: WebhookHandler;
  openApiDocument: () => unknown;
};

type Handler<Params, Query, P, Body> = (
  req: Request,
  res: Response,
  input: RouteInput<Params, Query, P, Body>,
) => Promise<void> | void;

/**
 * A request body. `schema`: a JSON body the runner reads (at most `json`) and parses before the handler runs,
 * a refusal 422 naming the field; OpenAPI's requestBody is written from the same schema (`jsonBody`). Without
 * it the body is documented only: the webhook and statement uploads read their raw bytes themselves.
 */
export type BodyDeclaration<Body extends z.ZodType | undefined = z.ZodType | undefined> = {
  required: boolean;
  content: Record<string, z.ZodType | JsonSchema>;
  json?: string;
  schema?: Body;
};

/**
 * One route, said once: the runner (`mountRoutes.ts`) mounts it, checks its role, parses its path and query,
 * and `openapi/document.ts` writes its entry. `path` is OpenAPI's template (`{name}` for a path parameter).
 */
export type Route<
  Params extends z.ZodObject | undefined = z.ZodObject | undefined,
  Query extends z.ZodObject | undefined = z.ZodObject | undefined,
  P extends Paging | undefined = Paging | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
> = {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Role;
  params?: Params;
  /** The route's own query parameters, parsed before `paging`'s. */
  query?: Query;
  paging?: P;
  /** Documented only: the webhook reads its headers itself, over the raw body. */
  headers?: z.ZodObject;
  body?: BodyDeclaration<Body>;
  answers: Record<number, Answer>;
  /** Built once per app. */
  handler: (deps: RouteDeps) => Handler<Params, Query, P, Body>;
};

/** A route declaration, its handler's input typed from its schemas. */
export function route<
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
  P extends Paging | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
>(declaration: Route<Params, Query, P, Body>): Route {
  return declaration as unknown as Route;
}

export const json = (schema: z.ZodType) => ({ 'application/json': schema });
/** A JSON body of at most `limit`, parsed by the runner with `schema` and documented from it. */
export const jsonBody = <Body extends z.ZodType>(
  schema: Body,
  { required, limit = '16kb' }: { required: boolean; limit?: string },
): BodyDeclaration<Body> => ({ required, content: json(schema), json: limit, schema });
export const text = { type: 'string' } as const;
export const ok = (description: string, schema: z.ZodType): Record<number, Answer> => ({
  200: { description, content: json(schema) },
});
export const refused = (description: string): Answer => ({ description, content: json(errorSchema) });
export const notFound = (what: string): Record<number, Answer> => ({
  404: refused(`No ${what} with that id.`),
});
