import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import helmet from 'helmet';
import {
  createWebhookHandler,
  keepWebhookError,
  readWebhookBody,
  type WebhookHandler,
} from '../ingest/webhookHandler.ts';
import { consoleRoutes, sendFavicon } from './console/console.ts';
import type { AppDeps } from './deps.ts';
import { errorHandler, notFound } from './errors.ts';
import { metricsRoute } from './metricsRoutes.ts';
import { openApiDocument } from './openapi/document.ts';
import { viewerHeaders } from './openapi/routes.ts';
import { requireApiToken } from './routes/auth.ts';
import { routes } from './routes/index.ts';
import { mountRoutes } from './routes/mountRoutes.ts';
import { parseQueryString } from './routes/params.ts';
import { apiTokensFrom } from './tokens.ts';

/**
 * helmet's headers on every /api/* answer, errors included: JSON is never a page to run, frame or refer from
 * (nosniff, no framing, no referrer, HSTS). The viewer at /api/docs sets its own policy over this one.
 */
const apiSecurityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

/** Builds the Express app; knows nothing of ports, so tests drive it directly. */
export function createApp(
  deps: AppDeps,
  handleWebhook: WebhookHandler = createWebhookHandler(deps),
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', parseQueryString);
  // Test-only: the suite's check of every answer against the route that gave it.
  if (deps.checkResponses) app.use(deps.checkResponses);
  app.use('/api', apiSecurityHeaders);
  app.use('/api/docs', viewerHeaders);
  const tokens = apiTokensFrom(deps.config);
  // With METRICS_PORT set, /metrics is served there only (api/metricsRoutes.ts) and is a 404 here.
  const served = deps.config.METRICS_PORT === undefined ? routes : routes.filter((r) => r !== metricsRoute);
  mountRoutes(app, served, { ...deps, tokens, handleWebhook, openApiDocument });
  app.get('/', (_req, res) => res.redirect(302, '/console'));
  app.get('/favicon.ico', sendFavicon);
  app.use('/console', consoleRoutes(deps, tokens));
  // A path under /api that no route has: refused as every route would be without a token, then not found.
  app.use('/api', requireApiToken(tokens));
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}

/**
 * The web role's request listener. `POST /webhooks` (that exact URL) skips Express: under load the CPU
 * profile put Express's per-request work (router, request and response setup, res.json) at the top, and
 * the web role's throughput is bounded by CPU, not Postgres. Everything else, including `/webhooks/`,
 * `/webhooks?…` and a webhook body that fails to read (413, aborted, bad encoding), is answered by the
 * app, so those answers keep their one source. Both paths run the same handler and group-commit writer.
 */
export function createWebListener(deps: AppDeps): RequestListener {
  const handleWebhook = createWebhookHandler(deps);
  const app = createApp(deps, handleWebhook);
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks') {
      app(req, res);
      return;
    }
    readWebhookBody(req, res, (err) => {
      if (err) {
        keepWebhookError(req, err);
        app(req, res);
        return;
      }
      handleWebhook(req, res).catch((failure: unknown) => {
        keepWebhookError(req, failure);
        app(req, res);
      });
    });
  };
}
