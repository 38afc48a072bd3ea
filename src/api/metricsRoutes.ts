import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { errorHandler, notFound } from './errors.ts';
import type { Metrics } from './metrics.ts';

/** GET /metrics: the Prometheus text exposition, from the last collection while it is fresh. */
export function answerMetrics(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.exposition());
  };
}

/**
 * The METRICS_PORT listener: GET /metrics without a token, for a private scrape network, and nothing else
 * (no webhook, API or console is reachable through it).
 */
export function createMetricsApp(metrics: Metrics, log: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', answerMetrics(metrics));
  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
