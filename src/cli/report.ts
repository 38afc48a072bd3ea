import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { createPool } from '../db/pool.ts';
import { addDays, businessDate } from '../domain/days.ts';
import { buildDailyReport } from '../reports/buildDailyReport.ts';
import { buildFeeConfigurationReport } from '../reports/buildFeeConfigurationReport.ts';
import { findReport } from '../reports/queries.ts';
import { renderCsv } from '../reports/renderCsv.ts';
import { renderHtml } from '../reports/renderHtml.ts';
import type { Report } from '../reports/reportSections.ts';
import { reportId, saveReport } from '../reports/saveReport.ts';
import { withReportSnapshot } from '../reports/withReportSnapshot.ts';
import type { CliContext } from './context.ts';
import { resolveDatabaseUrl } from './database.ts';
import { usages } from './usages.ts';

/** Builds a report now, stores it (and writes it to REPORTS_DIR when set), and prints or saves it. */
export async function reportCommand(args: string[], { config, log }: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      date: { type: 'string' },
      format: { type: 'string', default: 'json' },
      out: { type: 'string' },
    },
  });
  const kind = positionals[0];
  if (kind !== 'daily' && kind !== 'fee-configurations')
    throw new Error(`say which report; usage:\n  ${usages.report}`);
  const format = values.format;
  if (format !== 'json' && format !== 'csv' && format !== 'html')
    throw new Error('--format must be json, csv or html');
  const date = values.date ?? addDays(businessDate(new Date(), config.BUSINESS_TIME_ZONE), -1);
  if (kind === 'daily' && (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))) {
    throw new Error(`--date must be a day as YYYY-MM-DD, got "${date}"`);
  }
  const step = (message: string) => process.stderr.isTTY && process.stderr.write(`${message}\n`);
  const pool = createPool(await resolveDatabaseUrl(config), log, 4);
  try {
    step(kind === 'daily' ? `building the daily report for ${date}…` : 'comparing fee configurations…');
    const now = new Date();
    let report: Report;
    if (kind === 'daily') {
      report = await withReportSnapshot(pool, (client) =>
        buildDailyReport(client, date, now, config.BUSINESS_TIME_ZONE),
      );
    } else {
      const previous = await findReport(pool, { latestOf: 'fee-configurations' });
      const snapshot = previous
        ? { id: reportId(previous.id), configurations: (previous.body.configurations ?? []) as never }
        : null;
      report = await withReportSnapshot(pool, (client) => buildFeeConfigurationReport(client, now, snapshot));
    }
    const id = await saveReport(pool, report, config.REPORTS_DIR);
    step(`stored ${id}`);
    const out = values.out ? createWriteStream(values.out) : process.stdout;
    const chunks =
      format === 'csv'
        ? renderCsv(report)
        : [format === 'html' ? renderHtml(report, id) : `${JSON.stringify(report, null, 2)}\n`];
    for (const chunk of chunks) if (!out.write(chunk)) await once(out, 'drain');
    if (values.out) {
      out.end();
      await once(out, 'finish');
      step(`written to ${values.out}`);
    }
    return 0;
  } finally {
    await pool.end();
  }
}
