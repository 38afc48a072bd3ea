import cron from 'node-cron';
import type { Config } from '../config.ts';
import type { Boss } from '../queue/boss.ts';
import { type Runtime, runRole } from './runtime.ts';

export type Schedule = { job: string; cron: string };

/** Scheduled jobs and when they run (UTC), from the SCHEDULE_* settings. */
export function schedulesFor(config: Config): Schedule[] {
  return [
    { job: 'capture-expiry-scan', cron: config.SCHEDULE_CAPTURE_EXPIRY_SCAN },
    { job: 'fee-configuration-sync', cron: config.SCHEDULE_FEE_CONFIGURATION_SYNC },
    { job: 'daily-report', cron: config.SCHEDULE_DAILY_REPORT },
  ];
}

/**
 * Enqueues one tick of a schedule. The singleton key is the job and the minute it fires for, so any
 * number of clocks enqueue each tick once.
 */
export function enqueueTick(boss: Boss, schedule: Schedule, triggeredAt: Date): Promise<string | null> {
  const minute = triggeredAt.toISOString().slice(0, 16);
  return boss.send(schedule.job, {}, { singletonKey: `${schedule.job}:${minute}`, singletonSeconds: 3600 });
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
      { timezone: 'UTC', name: schedule.job },
    ),
  );
  runtime.log.info({ schedules }, 'clock started');
  return async () => {
    for (const task of tasks) await task.stop();
  };
}

if (import.meta.main) await runRole('clock', async (runtime) => startClock(runtime));
