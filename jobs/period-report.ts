import { recordHeldMismatches } from '../src/close/heldMismatches.ts';
import { currentPeriodReport } from '../src/close/periodService.ts';
import { periodOf, previousPeriod } from '../src/close/periods.ts';
import { PERIOD_REPORT_FILES } from '../src/close/renderPeriodHtml.ts';
import { enqueue } from '../src/queue/enqueue.ts';
import { defineJob } from '../src/queue/job.ts';
import { storeReport } from '../src/reports/saveReport.ts';

/**
 * Builds the close report of a business month (the previous one, unless one is named) and stores it as a report
 * of kind `period` (GET /api/reports lists it), also written to REPORTS_DIR as `period-<YYYY-MM>.{json,csv,html}`
 * when that is set; GET /api/periods/:period serves it live.
 * The report reads the replica when one is configured and within its lag. An ended period's tie-out opens or
 * resolves its `period_held_mismatch` findings. Then queues a closed-period-check, which checks the closed
 * periods against their stored versions with its own retries.
 */
export default defineJob('period-report', {
  async handle(payload, context) {
    const timeZone = context.config.BUSINESS_TIME_ZONE;
    const period = payload.period ?? previousPeriod(periodOf(context.now(), timeZone));
    const report = await currentPeriodReport(context.reads.pool, period, context.config, context.now());
    const stored = {
      kind: 'period' as const,
      period,
      body: report,
      generatedAt: new Date(report.generated_at),
    };
    const id = await storeReport(context.pool, stored, PERIOD_REPORT_FILES, context.config.REPORTS_DIR);
    context.log.info({ period, id, accounts: report.accounts.length }, 'period report built');
    const mismatches = await recordHeldMismatches(context.pool, report, context.now());
    context.log.info({ period, mismatches }, 'period tie-out recorded');
    await enqueue(context.boss, 'closed-period-check', [{}]);
  },
});
