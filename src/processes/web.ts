import { jobs } from '../../jobs/index.ts';
import { createWebListener } from '../api/app.ts';
import { createMetrics } from '../api/metrics.ts';
import { closeServer, serve } from '../api/serve.ts';
import { type Runtime, runRole } from './runtime.ts';

/** The web role: POST /webhooks, health, metrics and the read API. Returns its shutdown step. */
export async function startWeb(runtime: Runtime): Promise<() => Promise<void>> {
  const listener = createWebListener({
    ...runtime,
    metrics: createMetrics(runtime.pool, runtime.boss),
    jobs,
    now: () => new Date(),
  });
  const server = await serve(listener, runtime.config.PORT);
  const address = server.address();
  runtime.log.info({ port: typeof address === 'object' ? address?.port : address }, 'web listening');
  return () => closeServer(server);
}

if (import.meta.main) await runRole('web', startWeb);
