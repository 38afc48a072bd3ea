import path from 'node:path';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../deps.ts';
import { asHttpError, HttpError } from '../errors.ts';
import type { ApiTokens } from '../tokens.ts';
import { findingActions } from './actions.ts';
import { declinePages } from './declinePages.ts';
import { deliveryPages } from './deliveryPages.ts';
import { opsPages } from './opsPages.ts';
import { findingPages } from './pages.ts';
import { paymentPage } from './paymentPage.ts';
import { payoutPages } from './payoutPages.ts';
import { periodPages } from './periodPages.ts';
import { readYourChanges } from './readYourChanges.ts';
import { renderPage } from './render.ts';
import { consoleSession, provideCsrfToken, requireHttps, requireSignIn, signInRoutes } from './session.ts';
import { signInLimit } from './signInLimit.ts';
import { subscriptionPages } from './subscriptionPages.ts';

/**
 * Security headers for every console page: no script at all (so none inline), styles only from the console's
 * own stylesheet, never framed, no referrer (a payment id in a URL stays here).
 */
const securityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

const ASSETS = path.join(import.meta.dirname, 'assets');

/**
 * GET /favicon.ico: the console's icon (a 32 × 32 icon file drawn from assets/favicon.svg, which the pages link)
 * for browsers and bookmarks that ask the site's root. It changes about never, so it is cached for 30 days.
 */
export const sendFavicon: RequestHandler = (_req, res, next) => {
  res.sendFile(path.join(ASSETS, 'favicon.ico'), { maxAge: '30d' }, (err) => err && next(err));
};

/** GET /console: the operator console, server-rendered, signed in with an API token. */
export function consoleRoutes(deps: AppDeps, tokens: ApiTokens): Router {
  const router = express.Router();
  router.use(securityHeaders);
  router.use('/assets', express.static(ASSETS, { index: false, maxAge: '1h' }));
  if (!tokens.configured) {
    router.use((req, res) => renderPage(req, res, 'disabled', {}, 404));
    return router;
  }
  // Everywhere but development the session cookie is Secure, whatever a proxy sends (docs/console.md).
  const secureOnly = deps.config.NODE_ENV !== 'development' && deps.config.NODE_ENV !== 'test';
  const session = consoleSession(deps.pool, tokens, deps.log, secureOnly);
  router.use(
    requireHttps(secureOnly),
    session.middleware,
    provideCsrfToken,
    express.urlencoded({ extended: false, limit: '16kb' }),
  );
  router.use(signInRoutes(tokens, session.pruneSessions, signInLimit(deps.log)));
  router.use(requireSignIn(tokens), readYourChanges(deps.reads));
  router.use(
    findingPages(deps),
    paymentPage(deps),
    payoutPages(deps),
    deliveryPages(deps),
    opsPages(deps),
    declinePages(deps),
    periodPages(deps),
    subscriptionPages(deps),
    findingActions(deps),
  );
  router.use((req, res) => renderPage(req, res, 'error', { status: 404, message: 'No such page.' }, 404));
  router.use(consoleErrors(deps));
  return router;
}

/** Errors as pages: a refused input or change says why; anything else is logged and hidden. */
function consoleErrors(deps: AppDeps): ErrorRequestHandler {
  return (raised, req, res, _next) => {
    const err = asHttpError(raised) as typeof raised;
    if (err instanceof HttpError && err.status < 500) {
      renderPage(req, res, 'error', { status: err.status, message: err.message }, err.status);
      return;
    }
    deps.log.error(err, `${req.method} ${req.baseUrl}${req.path} failed`);
    renderPage(req, res, 'error', { status: 500, message: 'Something went wrong; it has been logged.' }, 500);
  };
}
