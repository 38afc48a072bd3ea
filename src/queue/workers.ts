import type { Job, JobResult } from 'pg-boss';
import { isRebuildRunning } from '../db/rebuildLock.ts';
import { redactCardNumbersInText } from '../domain/cardNumbers.ts';
import { traceJob } from '../tracing/spans.ts';
import { describeIssues } from '../zodIssues.ts';
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

/** How long a job fetched during a rebuild waits before it is run: put back for that many seconds. */
export const REBUILD_WAIT_SECONDS = 30;

/**
 * While a rebuild (`tally reprocess --all`) remakes the projections, a job would read them half built: a
 * judgement would open findings the rebuild's own judgements contradict, a report would count half a month.
 * Each job fetched is put back with its payload, to run `REBUILD_WAIT_SECONDS` later (its retries start
 * afresh), and this one completes. A job already running when the rebuild starts is not stopped.
 */
async function putBackDuringRebuild(
  job: JobDefinition,
  context: JobContext,
  batch: Job<unknown>[],
): Promise<JobResult[]> {
  await context.boss.insert(
    job.name,
    batch.map((item) => ({ data: item.data as object, startAfter: REBUILD_WAIT_SECONDS })),
  );
  context.log.info(
    { queue: job.name, jobs: batch.length },
    `${job.name} waits for the rebuild (tally reprocess --all): its fetched jobs are put back for ${REBUILD_WAIT_SECONDS} s`,
  );
  return batch.map((item) => ({ id: item.id, status: 'completed', output: { put_back: 'rebuild running' } }));
}

async function runBatch(
  job: JobDefinition,
  context: JobContext,
  batch: Job<unknown>[],
): Promise<JobResult[]> {
  if (await isRebuildRunning(context.pool)) return putBackDuringRebuild(job, context, batch);
  const log = context.log.child({ job: job.name });
  const items = batch.map((item) => {
    const parsed = job.payloadSchema.safeParse(item.data);
    // Fails the job (retried, then kept failed with the reason), never the worker.
    const error: unknown = parsed.success
      ? null
      : new Error(`payload invalid: ${describeIssues(parsed.error, 'payload')}`);
    const { id, retryCount, data } = item;
    return { id, retryCount, data, payload: parsed.data, error };
  });
  const valid = items.filter((item) => item.error === null);
  if (job.handleBatch) {
    const errors = await traceJob(
      job.name,
      valid.map((item) => item.id),
      () =>
        job.handleBatch(
          valid.map((item) => item.payload),
          { ...context, log },
        ),
    );
    valid.forEach((item, index) => {
      item.error = errors[index] ?? null;
    });
  } else {
    for (const item of valid) {
      await traceJob(job.name, [item.id], () =>
        job.handle(item.payload, { ...context, log: log.child({ jobId: item.id }) }, item.id),
      ).catch((err: unknown) => {
        item.error = err;
      });
    }
  }
  return Promise.all(
    items.map(async (item): Promise<JobResult> => {
      if (item.error === null) return { id: item.id, status: 'completed' };
      const message = redactCardNumbersInText(String(item.error));
      const subject = subjectOf(item.data);
      const attempt = item.retryCount + 1;
      // The last attempt is said apart: that job stays failed, counted in GET /api/status (failed_jobs).
      const retryLimit = await retryLimitOf(job, context, item.id);
      const final = item.retryCount >= retryLimit;
      const outcome = final ? 'failed for good' : 'failed, will retry';
      log.error(
        { queue: job.name, subject, jobId: item.id, attempt, final, err: item.error },
        `${job.name} ${subject} ${outcome} (attempt ${attempt} of ${retryLimit + 1}): ${message}`,
      );
      return { id: item.id, status: 'failed', output: { message } };
    }),
  );
}

/**
 * A failed job's own retry limit, read only on failure: fetching every job with its metadata costs the
 * worker's throughput dearly (`npm run bench:worker`). The queue's, when the job cannot be read.
 */
async function retryLimitOf(job: JobDefinition, context: JobContext, jobId: string): Promise<number> {
  const stored = await context.boss.getJobById(job.name, jobId).catch(() => null);
  // pg-boss's own default when a queue sets none.
  return stored?.retryLimit ?? job.queue?.retryLimit ?? 2;
}

/** What a job is about, from its payload's fields (`payment_id=py_1`); `all` for an empty payload. */
export function subjectOf(data: unknown): string {
  if (typeof data !== 'object' || data === null) return String(data);
  const fields = Object.entries(data).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return redactCardNumbersInText(fields.length === 0 ? 'all' : fields.join(' ').slice(0, 200));
}
