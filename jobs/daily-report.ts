import { defineJob } from '../src/queue/job.ts';
import { buildDailyReport } from '../src/reports/buildDailyReport.ts';
import { saveReport } from '../src/reports/saveReport.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';

const previousUtcDay = (now: Date) => new Date(now.getTime() - 24 * 3600 * 1000).toISOString().slice(0, 10);

/** Builds and stores the daily reconciliation report of a UTC day: the day before, unless one is named. */
export default defineJob('daily-report', {
  async handle(payload, context) {
    const date = payload.date ?? previousUtcDay(context.now());
    const report = await withReportSnapshot(context.pool, (client) =>
      buildDailyReport(client, date, context.now()),
    );
    const id = await saveReport(context.pool, report, context.config.REPORTS_DIR);
    context.log.info({ reportId: id, date, accounts: report.accounts.length }, 'daily report stored');
  },
});
