import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from '../../logger.ts';
import { renderPage } from './render.ts';

/** Failed sign-ins allowed per client address within SIGN_IN_WINDOW_MINUTES; the next one answers 429. */
export const SIGN_IN_ATTEMPTS = 10;
export const SIGN_IN_WINDOW_MINUTES = 15;

/**
 * Limits guessing tokens at the sign-in form: only refused sign-ins count (a successful one is taken back),
 * per client address in this process's memory. The address is the socket's (the app trusts no forwarding
 * header), so behind a proxy every client shares the proxy's limit. A limited client is refused even with a
 * good token until the window ends; Retry-After says when.
 */
export function signInLimit(log: Logger): RequestHandler {
  return rateLimit({
    windowMs: SIGN_IN_WINDOW_MINUTES * 60 * 1000,
    limit: SIGN_IN_ATTEMPTS,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // Forwarding headers are ignored on purpose (trust proxy is off): nothing to warn about.
    validate: { xForwardedForHeader: false, forwardedHeader: false },
    logger: log,
    handler: (req, res) => {
      log.warn({ ip: req.ip }, 'console sign-in limited: too many failed attempts');
      renderPage(
        req,
        res,
        'signIn',
        {
          failure: `Too many failed sign-ins from this address: try again in ${res.getHeader('retry-after')} seconds.`,
        },
        429,
      );
    },
  });
}
