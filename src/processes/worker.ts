import { jobs } from '../../jobs/index.ts';
import { startChangeSequencing } from '../changes/sequencingLoop.ts';
import { useBigintParser } from '../db/pool.ts';
import { startEventProcessing } from '../projection/processingLoop.ts';
import { createProjectionBacklog } from '../projection/projectionBacklog.ts';
import { enqueue } from '../queue/enqueue.ts';
import { startWorkers } from '../queue/workers.ts';
import { startForwarding } from '../subscriptions/forwardChanges.ts';
import type { ForwardingContext } from '../subscriptions/forwardingContext.ts';
import { type Runtime, runRole } from './runtime.ts';

/**
 * The worker role: projects stored deliveries as they arrive (claimed from the raw log), numbers committed
 * changes for the feed, forwards them to subscriptions and runs a pg-boss worker for every queue in
 * jobs/index.ts. Returns the step that stops the projection, sequencing and forwarding loops.
 */
export async function startWorker(runtime: Runtime): Promise<() => Promise<void>> {
  const stopLoops = startWorkerLoops(runtime);
  await startWorkers({ ...runtime, now: () => new Date() }, jobs);
  if (!runtime.config.PROVIDER_CLIENT_ID) {
    runtime.log.info(
      'fee configuration sync, missed-event sweep and payout sync disabled: PROVIDER_BASE_URL, PROVIDER_CLIENT_ID and PROVIDER_CLIENT_SECRET are unset',
    );
  }
  // Catches up at once on reconciliations a crash (this worker's or another's) left behind.
  await enqueue(runtime.boss, 'reconcile-stale', [{}]);
  runtime.log.info(
    { queues: ['process-event', 'forward-changes', ...jobs.map((job) => job.name)] },
    'worker started',
  );
  return stopLoops;
}

/**
 * The worker's own loops, beside its pg-boss workers: the projection, the numbering of changes, and
 * forwarding, which gives way while the projection has a backlog (src/subscriptions/giveWay.ts). Returns
 * the step that stops them.
 */
export function startWorkerLoops(context: ForwardingContext): () => Promise<void> {
  const backlog = createProjectionBacklog();
  const stopProcessing = startEventProcessing({ ...context, backlog });
  const stopSequencing = startChangeSequencing(context);
  const stopForwarding = startForwarding({ ...context, backlog });
  return async () => {
    await Promise.all([stopProcessing(), stopSequencing(), stopForwarding()]);
  };
}

if (import.meta.main) {
  useBigintParser();
  await runRole('worker', startWorker);
}
