import type { RequestHandler } from 'express';
import { HttpError } from '../errors.ts';
import type { ApiTokens, Principal } from '../tokens.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by requireApiToken or the console's session: who is calling. */
    principal?: Principal;
  }
}

const READING = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bearer token on every /api/* route; with no token configured the API is off, never open. A `read` token
 * reads everything and is refused (403) on every change: jobs, the finding workflow, anything not a read.
 */
export function requireApiToken(tokens: ApiTokens): RequestHandler {
  return (req, _res, next) => {
    if (!tokens.configured)
      throw new HttpError(404, 'api_disabled', 'the API is disabled: set API_TOKEN or API_TOKENS');
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    const principal = match?.[1] ? tokens.find(match[1]) : null;
    if (!principal) throw new HttpError(401, 'not_authenticated', 'missing or invalid bearer token');
    req.principal = principal;
    requireRoleFor(req.method, principal);
    next();
  };
}

/** Changes need an admin token. */
export function requireRoleFor(method: string, principal: Principal): void {
  if (!READING.has(method) && principal.role !== 'admin')
    throw new HttpError(
      403,
      'forbidden',
      `token ${principal.name} is read-only: changes need an admin token`,
    );
}
