import type { Request, RequestHandler } from 'express';
import { HttpError } from '../errors.ts';
import type { ApiTokens, Principal } from '../tokens.ts';
import type { Role } from './route.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by requireApiToken or the console's session: who is calling. */
    principal?: Principal;
  }
}

/** Who the bearer token belongs to; 401 when it is missing or unknown. */
function authenticate(tokens: ApiTokens, req: Request): Principal {
  const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
  const principal = match?.[1] ? tokens.find(match[1]) : null;
  if (!principal) throw new HttpError(401, 'not_authenticated', 'missing or invalid bearer token');
  return principal;
}

/**
 * A bearer token on /api/*; with no token configured the API is off, never open. Each route adds the role
 * it declares (`requireApiRole`); mounted alone after the routes, this answers a path no route has.
 */
export function requireApiToken(tokens: ApiTokens): RequestHandler {
  return (req, _res, next) => {
    if (!tokens.configured)
      throw new HttpError(404, 'api_disabled', 'the API is disabled: set API_TOKEN or API_TOKENS');
    req.principal = authenticate(tokens, req);
    next();
  };
}

/** A route of the API that declares `read` or `admin`: a token, then its role. */
export function requireApiRole(tokens: ApiTokens, role: 'read' | 'admin'): RequestHandler {
  const token = requireApiToken(tokens);
  return (req, res, next) => {
    token(req, res, () => {
      requireRole(role, req.principal as Principal);
      next();
    });
  };
}

/** GET /metrics on the main port (METRICS_PORT unset): a bearer token of any role, `metrics` included. */
export function requireMetricsToken(tokens: ApiTokens): RequestHandler {
  return (req, _res, next) => {
    if (!tokens.configured)
      throw new HttpError(
        404,
        'metrics_disabled',
        'GET /metrics needs a token: set API_TOKEN or API_TOKENS, or serve it on METRICS_PORT',
      );
    req.principal = authenticate(tokens, req);
    next();
  };
}

/** `read` needs an API role (admin or read); `admin` needs an admin token. A metrics token reads neither. */
export function requireRole(role: Exclude<Role, 'none' | 'metrics'>, principal: Principal): void {
  if (principal.role === 'metrics')
    throw new HttpError(
      403,
      'forbidden',
      `token ${principal.name} is a metrics token: it reads GET /metrics only`,
    );
  if (role === 'admin' && principal.role !== 'admin')
    throw new HttpError(
      403,
      'forbidden',
      `token ${principal.name} is read-only: changes need an admin token`,
    );
}
