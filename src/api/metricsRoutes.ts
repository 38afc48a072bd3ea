import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from '../logger.ts';
import { errorHandler, notFound } from './errors.ts';
import type { Metrics } from './metrics.ts';
import { route, text } from './routes/route.ts';

/** GET /metrics: the Prometheus text exposition, from the last collection while it is fresh. */
export function answerMetrics(metrics: Metrics) {
  return async (_req: Request, res: Response) => {
    res.type(metrics.registry.contentType).send(await metrics.exposition());
  };
}

/** GET /metrics on the main port; with METRICS_PORT set, the app leaves it out and `createMetricsApp` serves it. */
export const metricsRoute = route({
  method: 'get',
  path: '/metrics',
  tag: 'Health',
  auth: 'metrics',
  summary: 'Prometheus metrics',
  description:
    'A bearer token of any role (a `metrics` token reads this and nothing else). With `METRICS_PORT` set, served on that port only, without a token. The database gauges are collected at most every few seconds, from a pool of their own.',
  answers: { 200: { description: 'The text exposition format.', content: { 'text/plain': text } } },
  handler: (deps) => answerMetrics(deps.metrics),
});

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
