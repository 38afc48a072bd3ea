import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpError } from '../errors.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Bearer API_TOKEN on every /api/* route; with no token configured the API is off, never open. */
export function requireApiToken(token: string | undefined): RequestHandler {
  // Hashing both sides gives equal-length buffers, so the comparison is constant-time whatever is sent.
  const expected = token === undefined ? undefined : digest(token);
  return (req, _res, next) => {
    if (expected === undefined)
      throw new HttpError(404, 'api_disabled', 'the API is disabled: set API_TOKEN');
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      throw new HttpError(401, 'not_authenticated', 'missing or invalid bearer token');
    }
    next();
  };
}
