import type { JobContext, JobDefinition } from './job.ts';

/** Subscribes a pg-boss worker per job; a payload that fails its schema fails the job with the reason. */
export async function startWorkers(context: JobContext, jobs: readonly JobDefinition[]): Promise<void> {
  for (const job of jobs) {
    await context.boss.work(job.name, { localConcurrency: 2, pollingIntervalSeconds: 0.5 }, async (batch) => {
      for (const item of batch) {
        const log = context.log.child({ job: job.name, jobId: item.id });
        const payload = job.payloadSchema.parse(item.data);
        await job.handle(payload, { ...context, log }, item.id);
      }
    });
  }
}
