import type { Request, RequestHandler } from 'express';
import { HttpError } from '../errors.ts';
import type { ApiTokens, Principal } from '../tokens.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by requireApiToken or the console's session: who is calling. */
    principal?: Principal;
  }
}

const READING = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who the bearer token belongs to; 401 when it is missing or unknown. */
function authenticate(tokens: ApiTokens, req: Request): Principal {
  const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
  const principal = match?.[1] ? tokens.find(match[1]) : null;
  if (!principal) throw new HttpError(401, 'not_authenticated', 'missing or invalid bearer token');
  return principal;
}

/**
 * Bearer token on every /api/* route; with no token configured the API is off, never open. A `read` token
 * reads everything and is refused (403) on every change: jobs, the finding workflow, anything not a read. A
 * `metrics` token is refused (403) everywhere here: it reads GET /metrics only.
 */
export function requireApiToken(tokens: ApiTokens): RequestHandler {
  return (req, _res, next) => {
    if (!tokens.configured)
      throw new HttpError(404, 'api_disabled', 'the API is disabled: set API_TOKEN or API_TOKENS');
    const principal = authenticate(tokens, req);
    req.principal = principal;
    requireRoleFor(req.method, principal);
    next();
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

/** Reads need an API role (admin or read); changes need an admin token. */
export function requireRoleFor(method: string, principal: Principal): void {
  if (principal.role === 'metrics')
    throw new HttpError(
      403,
      'forbidden',
      `token ${principal.name} is a metrics token: it reads GET /metrics only`,
    );
  if (!READING.has(method) && principal.role !== 'admin')
    throw new HttpError(
      403,
      'forbidden',
      `token ${principal.name} is read-only: changes need an admin token`,
    );
}
