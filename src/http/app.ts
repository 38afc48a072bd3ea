import express, { type Express } from 'express';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from '../queue/boss.ts';
import type { JobDefinition } from '../queue/job.ts';
import { requireApiToken } from './api/auth.ts';
import { disputeRoutes } from './api/disputes.ts';
import { eventRoutes } from './api/events.ts';
import { findingRoutes } from './api/findings.ts';
import { jobRoutes } from './api/jobs.ts';
import { opsSignalRoutes } from './api/opsSignals.ts';
import { parseQueryString } from './api/params.ts';
import { paymentRoutes } from './api/payments.ts';
import { reportRoutes } from './api/reports.ts';
import { statusRoutes } from './api/status.ts';
import { errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import type { Metrics } from './metrics.ts';
import { webhookRoutes } from './webhooks.ts';

export type AppDeps = {
  config: Config;
  pool: Pool;
  boss: Boss;
  log: Logger;
  metrics: Metrics;
  jobs: readonly JobDefinition[];
  now: () => Date;
};

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
