import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import helmet from 'helmet';
import {
  createWebhookHandler,
  keepWebhookError,
  readWebhookBody,
  type WebhookHandler,
  webhookRoutes,
} from '../ingest/route.ts';
import { consoleRoutes, sendFavicon } from './console/console.ts';
import type { AppDeps } from './deps.ts';
import { errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import { answerMetrics } from './metricsRoutes.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { requireApiToken, requireMetricsToken } from './routes/auth.ts';
import { bankStatementRoutes } from './routes/bankStatements.ts';
import { declineRoutes } from './routes/declines.ts';
import { disputeRoutes } from './routes/disputes.ts';
import { eventRoutes } from './routes/events.ts';
import { findingAuditTrailRoutes } from './routes/findingAuditTrail.ts';
import { findingRoutes } from './routes/findings.ts';
import { jobRoutes } from './routes/jobs.ts';
import { opsSignalRoutes } from './routes/opsSignals.ts';
import { parseQueryString } from './routes/params.ts';
import { paymentRoutes } from './routes/payments.ts';
import { payoutRoutes } from './routes/payouts.ts';
import { periodCloseRoutes } from './routes/periodCloses.ts';
import { periodRoutes } from './routes/periods.ts';
import { reportRoutes } from './routes/reports.ts';
import { statusRoutes } from './routes/status.ts';
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
  app.use(webhookRoutes(handleWebhook));
  app.use(healthRoutes(deps));
  const tokens = apiTokensFrom(deps.config);
  // With METRICS_PORT set, /metrics is served there only (api/metricsRoutes.ts) and is a 404 here.
  if (deps.config.METRICS_PORT === undefined)
    app.get('/metrics', requireMetricsToken(tokens), answerMetrics(deps.metrics));
  app.get('/', (_req, res) => res.redirect(302, '/console'));
  app.get('/favicon.ico', sendFavicon);
  app.use('/console', consoleRoutes(deps, tokens));
  app.use(
    '/api',
    apiSecurityHeaders,
    openApiRoutes(),
    requireApiToken(tokens),
    statusRoutes(deps),
    eventRoutes(deps),
    paymentRoutes(deps),
    payoutRoutes(deps),
    findingAuditTrailRoutes(deps),
    findingRoutes(deps),
    opsSignalRoutes(deps),
    disputeRoutes(deps),
    declineRoutes(deps),
    reportRoutes(deps),
    periodRoutes(deps),
    periodCloseRoutes(deps),
    jobRoutes(deps),
    bankStatementRoutes(deps),
  );
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
