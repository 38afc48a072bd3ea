import { addDays, businessDate } from '../src/domain/days.ts';
import { defineJob } from '../src/queue/job.ts';
import { buildDailyReport } from '../src/reports/buildDailyReport.ts';
import { saveReport } from '../src/reports/saveReport.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';

/**
 * Builds the daily reconciliation report of a business day (the day before, unless one is named) from the read
 * replica when one is configured and within its lag, and stores it on the primary.
 */
export default defineJob('daily-report', {
  async handle(payload, context) {
    const timeZone = context.config.BUSINESS_TIME_ZONE;
    const date = payload.date ?? addDays(businessDate(context.now(), timeZone), -1);
    const report = await withReportSnapshot(context.reads.pool, (client) =>
      buildDailyReport(client, date, context.now(), timeZone),
    );
    const id = await saveReport(context.pool, report, context.config.REPORTS_DIR);
    context.log.info({ reportId: id, date, accounts: report.accounts.length }, 'daily report stored');
  },
});
