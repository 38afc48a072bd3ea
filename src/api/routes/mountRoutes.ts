import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Response } from 'express';
import { HttpError, isPathDecodeError } from '../errors.ts';
import { requireApiRole, requireMetricsToken } from './auth.ts';
import { keyPageFromQuery } from './keyPagination.ts';
import { pageFromQuery } from './pagination.ts';
import { parseBody, parseParams, parseQuery } from './params.ts';
import type { Role, Route, RouteDeps } from './route.ts';

const DECLARED = 'declaredRoute';

/** The declaration that answered a request (unset for a path no route has): for the suite's response check. */
export function declaredRouteOf(res: Response): Route | undefined {
  return res.locals[DECLARED] as Route | undefined;
}

/** Express's path for OpenAPI's template: `{id}` is `:id`. */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

function roleCheck(role: Role, deps: RouteDeps): RequestHandler[] {
  if (role === 'none') return [];
  if (role === 'metrics') return [requireMetricsToken(deps.tokens)];
  return [requireApiRole(deps.tokens, role)];
}

/**
 * Mounts each route as it declares itself: its role first (before a byte of the body is read), then its JSON
 * body if it takes one, then its query, its page, its path parameters and its body, each a 4xx naming the
 * parameter or field.
 */
export function mountRoutes(app: Express, routes: readonly Route[], deps: RouteDeps): void {
  // A template with text after a parameter first: `/api/payouts/{id}` would take `po_1.csv` as an id.
  const suffixed = (declared: Route) => /\}./.test(declared.path);
  for (const declared of [...routes.filter(suffixed), ...routes.filter((other) => !suffixed(other))]) {
    const handle = declared.handler(deps);
    const mark: RequestHandler = (_req, res, next) => {
      res.locals[DECLARED] = declared;
      next();
    };
    const body = declared.body?.json ? [express.json({ limit: declared.body.json })] : [];
    app[declared.method](
      expressPath(declared.path),
      mark,
      ...roleCheck(declared.auth, deps),
      ...body,
      async (req, res) => {
        const query = declared.query ? parseQuery(declared.query, req.query) : {};
        const page =
          declared.paging === 'keys'
            ? keyPageFromQuery(req.query)
            : declared.paging === 'rows'
              ? pageFromQuery(req.query)
              : undefined;
        const params = declared.params ? parseParams(declared.params, req.params) : {};
        const body = declared.body?.schema ? parseBody(declared.body.schema, req.body) : undefined;
        await handle(req, res, { query, page, params, body } as never);
      },
    );
  }
  app.use(undecodableParameterOfRoutes(routes));
}

const decodes = (segment: string) => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};
const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Express decodes path parameters before any handler runs and throws a URIError on a malformed `%`
 * sequence: answered as 400 naming the parameter of the route the path has the shape of (a console router,
 * with one parameter, names it itself: undecodablePathParam in params.ts).
 */
function undecodableParameterOfRoutes(routes: readonly Route[]): ErrorRequestHandler {
  const shapes = routes
    .filter((declared) => declared.path.includes('{'))
    .map((declared) => ({
      names: [...declared.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string),
      pattern: new RegExp(
        `^${declared.path
          .split(/\{\w+\}/)
          .map(escapeRegExp)
          .join('([^/]+)')}/?$`,
        'i',
      ),
    }));
  return (err, req, _res, next) => {
    if (!isPathDecodeError(err)) return next(err);
    for (const { names, pattern } of shapes) {
      const segments = pattern.exec(req.path)?.slice(1);
      const index = segments?.findIndex((segment) => !decodes(segment)) ?? -1;
      if (index >= 0)
        return next(
          new HttpError(400, 'invalid_parameter', `${names[index]}: must be valid percent-encoded UTF-8`),
        );
    }
    next(err);
  };
}
