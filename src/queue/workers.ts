import type { Job, JobResult } from 'pg-boss';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import { describeIssues } from '../issues.ts';
import type { JobContext, JobDefinition } from './job.ts';

/**
 * Subscribes a pg-boss worker per job. Each job of a fetched batch is settled on its own, so one failing
 * job (retried with its queue's back-off) never holds back the others.
 */
export async function startWorkers(context: JobContext, jobs: readonly JobDefinition[]): Promise<void> {
  for (const job of jobs) {
    const options = {
      batchSize: job.batchSize ?? 1,
      localConcurrency: 2,
      pollingIntervalSeconds: 0.5,
      perJobResults: true,
      // A full batch means a backlog: fetch again at once instead of waiting for the next poll.
      burstWhenBatchFull: true,
    } as const;
    await context.boss.work(job.name, options, (batch) => runBatch(job, context, batch));
  }
}

async function runBatch(
  job: JobDefinition,
  context: JobContext,
  batch: Job<unknown>[],
): Promise<JobResult[]> {
  const log = context.log.child({ job: job.name });
  const items: { id: string; retryCount: number; data: unknown; payload: unknown; error: unknown }[] =
    batch.map((item) => {
      const parsed = job.payloadSchema.safeParse(item.data);
      // Fails the job (retried, then kept failed with the reason), never the worker.
      const error = parsed.success
        ? null
        : new Error(`payload invalid: ${describeIssues(parsed.error, 'payload')}`);
      return { id: item.id, retryCount: item.retryCount, data: item.data, payload: parsed.data, error };
    });
  const valid = items.filter((item) => item.error === null);
  if (job.handleBatch) {
    const errors = await job.handleBatch(
      valid.map((item) => item.payload),
      { ...context, log },
    );
    valid.forEach((item, index) => {
      item.error = errors[index] ?? null;
    });
  } else {
    for (const item of valid) {
      await job
        .handle(item.payload, { ...context, log: log.child({ jobId: item.id }) }, item.id)
        .catch((err: unknown) => {
          item.error = err;
        });
    }
  }
  // pg-boss's own default when a queue sets none.
  const retryLimit = job.queue?.retryLimit ?? 2;
  return items.map((item) => {
    if (item.error === null) return { id: item.id, status: 'completed' };
    const message = redactCardNumbersInText(String(item.error));
    // The last attempt is said apart: that job stays failed, counted in GET /api/status (failed_jobs).
    const final = item.retryCount >= retryLimit;
    log.error(
      {
        queue: job.name,
        subject: subjectOf(item.data),
        jobId: item.id,
        attempt: item.retryCount + 1,
        final,
        err: item.error,
      },
      `${job.name} ${subjectOf(item.data)} failed${final ? ' for good' : ', will retry'} (attempt ${item.retryCount + 1} of ${retryLimit + 1}): ${message}`,
    );
    return { id: item.id, status: 'failed', output: { message } };
  });
}

/** What a job is about, from its payload's fields (`payment_id=py_1`); `all` for an empty payload. */
export function subjectOf(data: unknown): string {
  if (typeof data !== 'object' || data === null) return String(data);
  const fields = Object.entries(data).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return redactCardNumbersInText(fields.length === 0 ? 'all' : fields.join(' ').slice(0, 200));
}
