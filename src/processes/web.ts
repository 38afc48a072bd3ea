import type { Server } from 'node:http';
import { jobs } from '../../jobs/index.ts';
import { createWebListener } from '../api/app.ts';
import { createMetrics } from '../api/metrics.ts';
import { createMetricsApp } from '../api/metricsRoutes.ts';
import { closeServer, serve } from '../api/serve.ts';
import { createPool, useBigintParser } from '../db/pool.ts';
import { type Runtime, runRole } from './runtime.ts';

// One collection at a time runs its reads one after another (api/metricsGauges.ts): one connection serves it.
const METRICS_POOL_SIZE = 1;

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' ? address?.port : address;
};

/**
 * The web role: POST /webhooks, health, metrics and the read API. Returns its shutdown step. Metrics read
 * from a small pool of their own, so scrapes never take a connection that stores webhooks; with METRICS_PORT
 * set they are served on that port only.
 */
export async function startWeb(runtime: Runtime): Promise<() => Promise<void>> {
  const metricsPool = createPool(runtime.connectionString, runtime.log, METRICS_POOL_SIZE, 'tally-metrics');
  const metrics = createMetrics(metricsPool, runtime.boss, { reads: runtime.reads });
  const listener = createWebListener({ ...runtime, metrics, jobs, now: () => new Date() });
  const server = await serve(listener, runtime.config.PORT);
  runtime.log.info({ port: portOf(server) }, 'web listening');
  if (!runtime.config.WEBHOOK_SECRETS)
    runtime.log.warn(
      'WEBHOOK_SECRETS unset: POST /webhooks answers 503 webhook_secret_unset until it is set',
    );
  const metricsPort = runtime.config.METRICS_PORT;
  const metricsServer =
    metricsPort === undefined ? null : await serve(createMetricsApp(metrics, runtime.log), metricsPort);
  if (metricsServer) runtime.log.info({ port: portOf(metricsServer) }, 'metrics listening');
  return async () => {
    await Promise.all([closeServer(server), metricsServer && closeServer(metricsServer)]);
    await metricsPool.end();
  };
}

if (import.meta.main) {
  useBigintParser();
  await runRole('web', startWeb);
}
