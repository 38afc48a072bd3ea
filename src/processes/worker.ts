import { jobs } from '../../jobs/index.ts';
import { enqueue } from '../queue/queues.ts';
import { startWorkers } from '../queue/workers.ts';
import { type Runtime, runRole } from './runtime.ts';

/** The worker role: a pg-boss worker for every queue in jobs/index.ts. */
export async function startWorker(runtime: Runtime): Promise<void> {
  await startWorkers({ ...runtime, now: () => new Date() }, jobs);
  if (!runtime.config.PROVIDER_CLIENT_ID) {
    runtime.log.info(
      'fee configuration sync and missed-event sweep disabled: PROVIDER_BASE_URL, PROVIDER_CLIENT_ID and PROVIDER_CLIENT_SECRET are unset',
    );
  }
  // Catches up at once on reconciliations a crash (this worker's or another's) left behind.
  await enqueue(runtime.boss, 'reconcile-stale', [{}]);
  runtime.log.info({ queues: jobs.map((job) => job.name) }, 'worker started');
}

if (import.meta.main) {
  await runRole('worker', async (runtime) => {
    await startWorker(runtime);
    return undefined;
  });
}
