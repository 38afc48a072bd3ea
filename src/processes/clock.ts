import cron from 'node-cron';
import type { Config } from '../config.ts';
import { useBigintParser } from '../db/pool.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueue } from '../queue/enqueue.ts';
import { queueNames, queues, type StartableQueueName } from '../queue/queues.ts';
import { type Runtime, runRole } from './runtime.ts';

export type Schedule = { job: StartableQueueName; cron: string; timezone: string };

/**
 * Scheduled jobs and when they run: the registry's queues that name a SCHEDULE_* setting or a cron, in UTC, or
 * in BUSINESS_TIME_ZONE for jobs about business days (a report at 00:15 is after that zone's midnight).
 */
export function schedulesFor(config: Config): Schedule[] {
  return queueNames.flatMap((name) => {
    const queue = queues[name];
    // The registry allows a schedule only on a queue that an empty payload starts.
    const cron = 'cronSetting' in queue && queue.cronSetting ? config[queue.cronSetting] : queue.cron;
    const timezone = 'businessTime' in queue && queue.businessTime ? config.BUSINESS_TIME_ZONE : 'UTC';
    return cron ? [{ job: name as StartableQueueName, cron, timezone }] : [];
  });
}

/**
 * Enqueues one tick of a schedule. The singleton key is the job and the minute it fires for, so any
 * number of clocks enqueue each tick once.
 */
export async function enqueueTick(boss: Boss, schedule: Schedule, triggeredAt: Date): Promise<string | null> {
  const minute = triggeredAt.toISOString().slice(0, 16);
  const options = { singletonKey: `${schedule.job}:${minute}`, singletonSeconds: 3600 };
  const [id] = await enqueue(boss, schedule.job, [{}], options);
  return id ?? null;
}

/** The clock role: each tick only enqueues. */
export function startClock(runtime: Runtime): () => Promise<void> {
  const schedules = schedulesFor(runtime.config);
  const tasks = schedules.map((schedule) =>
    cron.schedule(
      schedule.cron,
      async (context) => {
        await enqueueTick(runtime.boss, schedule, context.triggeredAt).catch((err: unknown) =>
          runtime.log.error(err, `could not enqueue ${schedule.job}`),
        );
      },
      { timezone: schedule.timezone, name: schedule.job },
    ),
  );
  runtime.log.info({ schedules }, 'clock started');
  return async () => {
    for (const task of tasks) await task.stop();
  };
}

if (import.meta.main) {
  useBigintParser();
  await runRole('clock', async (runtime) => startClock(runtime), { readsReplica: false });
}
