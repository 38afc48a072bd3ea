import { createHash, timingSafeEqual } from 'node:crypto';
import connectPgSimple from 'connect-pg-simple';
import { csrfSync } from 'csrf-sync';
import express, { type Request, type RequestHandler, type Router } from 'express';
import session from 'express-session';
import type { Pool } from '../../db/pool.ts';
import type { Logger } from '../../logger.ts';
import { HttpError } from '../errors.ts';
import type { ApiTokens } from '../tokens.ts';
import { renderPage } from './render.ts';

declare module 'express-session' {
  interface SessionData {
    /** The hash of the token signed in with, never the token: a token removed from the config ends the session. */
    fingerprint?: string;
  }
}

// A working day: long enough to keep working, short enough that a forgotten laptop is signed out.
const SESSION_HOURS = 8;
// A session made only to show the sign-in form (its CSRF token) lives this long: anonymous visits cannot pile up.
const SIGN_IN_FORM_MINUTES = 15;
// Expired sessions are deleted at most this often, from the sign-in form and sign-in.
const PRUNE_EVERY_MS = 60_000;

const csrf = csrfSync({
  getTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string,
});

/**
 * The console's session cookie (HttpOnly, SameSite=Strict), with sessions kept in Postgres so every web
 * process shares them. Expired rows are pruned at each sign-in rather than by a timer in every process.
 * `secureOnly` (everywhere but development): the cookie is always Secure, whatever a proxy says; express-session
 * then sets it only on a request that came over HTTPS (directly, or X-Forwarded-Proto https), and
 * `requireHttps` says so on the sign-in page instead of letting the form fail. In development the cookie is
 * Secure only over HTTPS, so http://localhost works.
 */
export function consoleSession(pool: Pool, tokens: ApiTokens, log: Logger, secureOnly: boolean) {
  const PgStore = connectPgSimple(session);
  const store = new PgStore({
    pool,
    tableName: 'console_sessions',
    createTableIfMissing: false,
    pruneSessionInterval: false,
    errorLog: (...args: unknown[]) => log.warn({ detail: args.map(String) }, 'console session store failed'),
  });
  const middleware = session({
    name: 'tally_session',
    secret: tokens.sessionSecret,
    store,
    resave: false,
    saveUninitialized: false,
    proxy: true,
    cookie: {
      httpOnly: true,
      sameSite: 'strict',
      secure: secureOnly ? true : 'auto',
      maxAge: SESSION_HOURS * 3600 * 1000,
      path: '/console',
    },
    unset: 'destroy',
  });
  let lastPrune = 0;
  const pruneSessions = () => {
    if (Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    store.pruneSessions();
  };
  return { middleware, pruneSessions };
}

/**
 * Every console form carries the session's CSRF token; a change without it is refused (403). csrf-sync makes
 * and keeps the token; the comparison is done here, in constant time (csrf-sync compares with ===).
 */
export const requireCsrfToken: RequestHandler = (req, _res, next) => {
  const sent = csrf.getTokenFromRequest(req);
  const stored = csrf.getTokenFromState(req);
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const valid =
    typeof sent === 'string' && typeof stored === 'string' && timingSafeEqual(digest(sent), digest(stored));
  if (!valid)
    throw new HttpError(403, 'csrf_invalid', 'missing or invalid form token: reload the page and try again');
  next();
};

/** Makes `req.csrfToken()` available to the pages (one token per session). */
export const provideCsrfToken: RequestHandler = (req, _res, next) => {
  req.csrfToken = (overwrite?: boolean) => csrf.generateToken(req, overwrite);
  next();
};

/** Whether express-session, which trusts X-Forwarded-Proto here (`proxy: true`), takes the request for HTTPS. */
function cameOverHttps(req: Request): boolean {
  const forwarded = req.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return (req.socket as { encrypted?: boolean }).encrypted === true || forwarded === 'https';
}

/** With a Secure-only cookie, signing in over plain HTTP could never keep a session: refuse it and say why. */
export function requireHttps(secureOnly: boolean): RequestHandler {
  return (req, _res, next) => {
    if (secureOnly && !cameOverHttps(req))
      throw new HttpError(
        403,
        'https_required',
        'The console signs in over HTTPS only: open it through HTTPS (a proxy in front must send X-Forwarded-Proto).',
      );
    next();
  };
}

/** Sign-in with an API token (its role applies; a metrics token is refused), and sign-out. */
export function signInRoutes(tokens: ApiTokens, pruneSessions: () => void, limit: RequestHandler): Router {
  const router = express.Router();
  router.get('/sign-in', async (req, res) => {
    req.session.cookie.maxAge = SIGN_IN_FORM_MINUTES * 60 * 1000;
    pruneSessions();
    csrf.generateToken(req);
    await saveSession(req);
    renderPage(req, res, 'signIn', { failure: null });
  });
  // Limited before the CSRF check, so a client that keeps failing either is refused all the same.
  router.post('/sign-in', limit, requireCsrfToken, async (req, res) => {
    const token = (req.body as Record<string, unknown>).token;
    const principal = typeof token === 'string' && token !== '' ? tokens.find(token.trim()) : null;
    if (!principal) {
      renderPage(req, res, 'signIn', { failure: 'That token is not valid.' }, 401);
      return;
    }
    if (principal.role === 'metrics') {
      renderPage(req, res, 'signIn', { failure: 'A metrics token reads GET /metrics only.' }, 403);
      return;
    }
    // A new session id at sign-in: an id planted before it (session fixation) is worth nothing after.
    await new Promise<void>((resolve, reject) =>
      req.session.regenerate((err) => (err ? reject(err) : resolve())),
    );
    req.session.fingerprint = tokens.fingerprint((token as string).trim());
    // The session's CSRF token is made now, once, and saved before the redirect is answered: express-session
    // would otherwise save at the end of the response, after a browser may already follow the redirect.
    csrf.generateToken(req);
    await saveSession(req);
    pruneSessions();
    res.redirect(303, '/console');
  });
  router.post('/sign-out', requireCsrfToken, async (req, res) => {
    await new Promise<void>((resolve, reject) =>
      req.session.destroy((err) => (err ? reject(err) : resolve())),
    );
    res.clearCookie('tally_session', { path: '/console' });
    res.redirect(303, '/console/sign-in');
  });
  return router;
}

function saveSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}

/** Pages past sign-in: who the session stands for, or a redirect to the sign-in page. */
export function requireSignIn(tokens: ApiTokens): RequestHandler {
  return (req, res, next) => {
    const principal = req.session.fingerprint ? tokens.findByFingerprint(req.session.fingerprint) : null;
    // A token whose role became `metrics` since it signed in opens nothing either.
    if (!principal || principal.role === 'metrics') {
      res.redirect(303, '/console/sign-in');
      return;
    }
    req.principal = principal;
    next();
  };
}
