import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueTick, schedulesFor } from '../../src/processes/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it('several clocks firing the same tick enqueue the job once; the next tick enqueues again', async () => {
  const schedule = schedulesFor(t.config).find((candidate) => candidate.job === 'capture-expiry-scan');
  if (!schedule) throw new Error('capture-expiry-scan is not scheduled');
  const tick = new Date('2026-11-22T10:05:00.123Z');
  const ids = await Promise.all([1, 2, 3].map(() => enqueueTick(t.boss, schedule, tick)));
  expect(ids.filter((id) => id !== null)).toHaveLength(1);
  expect(await enqueueTick(t.boss, schedule, new Date('2026-11-22T10:05:00.900Z'))).toBeNull();
  expect(await enqueueTick(t.boss, schedule, new Date('2026-11-22T10:10:00.000Z'))).not.toBeNull();
  expect(await t.boss.findJobs('capture-expiry-scan')).toHaveLength(2);
});

it('schedules come from the SCHEDULE_* settings, with documented defaults, and bad cron strings fail at boot', async () => {
  expect(schedulesFor(t.config)).toEqual([
    { job: 'reconcile-stale', cron: '*/2 * * * *', timezone: 'UTC' },
    { job: 'capture-expiry-scan', cron: '*/5 * * * *', timezone: 'UTC' },
    { job: 'fee-configuration-sync', cron: '0 * * * *', timezone: 'UTC' },
    { job: 'missed-event-sweep', cron: '*/15 * * * *', timezone: 'UTC' },
    { job: 'payout-sync', cron: '0 * * * *', timezone: 'UTC' },
    { job: 'daily-report', cron: '15 0 * * *', timezone: 'UTC' },
    { job: 'period-report', cron: '30 6 2 * *', timezone: 'UTC' },
    { job: 'closed-period-check', cron: '40 * * * *', timezone: 'UTC' },
    { job: 'retention-purge', cron: '30 3 * * *', timezone: 'UTC' },
    { job: 'payout-scan', cron: '*/15 * * * *', timezone: 'UTC' },
    { job: 'alert-scan', cron: '* * * * *', timezone: 'UTC' },
    { job: 'change-purge', cron: '17 * * * *', timezone: 'UTC' },
  ]);
  const { loadConfig } = await import('../../src/config.ts');
  expect(schedulesFor(loadConfig({ SCHEDULE_DAILY_REPORT: '30 1 * * *' }))[5]).toEqual({
    job: 'daily-report',
    cron: '30 1 * * *',
    timezone: 'UTC',
  });
  expect(schedulesFor(loadConfig({ SCHEDULE_MISSED_EVENT_SWEEP: '0 */2 * * *' }))[3]).toEqual({
    job: 'missed-event-sweep',
    cron: '0 */2 * * *',
    timezone: 'UTC',
  });
  expect(() => loadConfig({ SCHEDULE_CAPTURE_EXPIRY_SCAN: 'every five minutes' })).toThrow(
    /SCHEDULE_CAPTURE_EXPIRY_SCAN: is not a valid cron/,
  );
});
