import { defineJob } from '../src/queue/job.ts';
import { buildFeeConfigurationReport } from '../src/reports/buildFeeConfigurationReport.ts';
import { findReport } from '../src/reports/queries.ts';
import { reportId, saveReport } from '../src/reports/saveReport.ts';
import { withReportSnapshot } from '../src/reports/withReportSnapshot.ts';

/** Compares the stored fee configuration history with the previous report's and stores the comparison. */
export default defineJob('fee-configuration-report', {
  async handle(_payload, context) {
    const previous = await findReport(context.pool, { latestOf: 'fee-configurations' });
    const snapshot = previous
      ? { id: reportId(previous.id), configurations: (previous.body.configurations ?? []) as never }
      : null;
    const report = await withReportSnapshot(context.pool, (client) =>
      buildFeeConfigurationReport(client, context.now(), snapshot),
    );
    const id = await saveReport(context.pool, report, context.config.REPORTS_DIR);
    context.log.info({ reportId: id, accounts: report.accounts.length }, 'fee configuration report stored');
  },
});
