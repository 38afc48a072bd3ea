import cron from 'node-cron';
import { type Runtime, runRole } from './runtime.ts';

export type Schedule = { job: string; cron: string };

/** Scheduled jobs and when they run. Filled in by the issues that add scheduled jobs. */
export const schedules: readonly Schedule[] = [];

/** The clock role: each tick only enqueues, with a singleton key so N clocks send each tick once. */
export function startClock(runtime: Runtime): () => Promise<void> {
  const tasks = schedules.map((schedule) =>
    cron.schedule(
      schedule.cron,
      async (context) => {
        const tick = context.triggeredAt.toISOString().slice(0, 16);
        await runtime.boss
          .send(schedule.job, {}, { singletonKey: `${schedule.job}:${tick}`, singletonSeconds: 60 })
          .catch((err: unknown) => runtime.log.error(err, `could not enqueue ${schedule.job}`));
      },
      { timezone: 'UTC', name: schedule.job },
    ),
  );
  runtime.log.info({ schedules }, 'clock started');
  return async () => {
    for (const task of tasks) await task.stop();
  };
}

if (import.meta.main) await runRole('clock', async (runtime) => startClock(runtime));
