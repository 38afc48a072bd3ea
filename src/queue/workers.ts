import type { JobResult } from 'pg-boss';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import type { JobContext, JobDefinition } from './job.ts';

/**
 * Subscribes a pg-boss worker per job. Jobs of a fetched batch are handled one by one and settled on their
 * own, so one failing job (retried with its queue's back-off) never holds back the others.
 */
export async function startWorkers(context: JobContext, jobs: readonly JobDefinition[]): Promise<void> {
  for (const job of jobs) {
    const options = {
      batchSize: job.batchSize ?? 1,
      localConcurrency: 2,
      pollingIntervalSeconds: 0.5,
      perJobResults: true,
    } as const;
    await context.boss.work(job.name, options, async (batch) => {
      const results: JobResult[] = [];
      for (const item of batch) {
        const log = context.log.child({ job: job.name, jobId: item.id });
        try {
          await job.handle(job.payloadSchema.parse(item.data), { ...context, log }, item.id);
          results.push({ id: item.id, status: 'completed' });
        } catch (err) {
          log.error(err, `${job.name} failed (attempt ${item.retryCount + 1})`);
          results.push({
            id: item.id,
            status: 'failed',
            output: { message: redactCardNumbersInText(String(err)) },
          });
        }
      }
      return results;
    });
  }
}
