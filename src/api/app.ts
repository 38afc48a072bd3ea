import express, { type Express } from 'express';
import { webhookRoutes } from '../ingest/route.ts';
import type { AppDeps } from './deps.ts';
import { errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import { requireApiToken } from './routes/auth.ts';
import { disputeRoutes } from './routes/disputes.ts';
import { eventRoutes } from './routes/events.ts';
import { findingRoutes } from './routes/findings.ts';
import { jobRoutes } from './routes/jobs.ts';
import { opsSignalRoutes } from './routes/opsSignals.ts';
import { parseQueryString } from './routes/params.ts';
import { paymentRoutes } from './routes/payments.ts';
import { reportRoutes } from './routes/reports.ts';
import { statusRoutes } from './routes/status.ts';

/** Builds the Express app; knows nothing of ports, so tests drive it directly. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', parseQueryString);
  app.use(webhookRoutes(deps));
  app.use(healthRoutes(deps));
  app.use(
    '/api',
    requireApiToken(deps.config.API_TOKEN),
    statusRoutes(deps),
    eventRoutes(deps),
    paymentRoutes(deps),
    findingRoutes(deps),
    opsSignalRoutes(deps),
    disputeRoutes(deps),
    reportRoutes(deps),
    jobRoutes(deps),
  );
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
